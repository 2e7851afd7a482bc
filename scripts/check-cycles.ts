// Fails when any import cycle exists in libs/, services/ or tools/, or when a host imports another host.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const dirs = ['libs', 'services', 'tools']
  .flatMap((d) => readdirSync(path.join(root, d)).map((p) => path.join(d, p, 'src')))
  .filter((d) => {
    try {
      return statSync(path.join(root, d)).isDirectory();
    } catch {
      return false;
    }
  });

const out = execFileSync(
  path.join(root, 'node_modules/.bin/dpdm'),
  [
    '--no-warning',
    '--no-tree',
    '--exit-code',
    'circular:1',
    '-T',
    '--no-progress',
    ...dirs.map((d) => `${d}/**/*.ts`),
  ],
  { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
);
void out;

const hostImport = /from '@svc\/(connect|native|session|device|oidc|worker)'/;
const offenders: string[] = [];
const walk = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (name === 'node_modules' || name === 'generated') continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && hostImport.test(readFileSync(p, 'utf8')))
      offenders.push(path.relative(root, p));
  }
};
for (const d of ['libs', 'services', 'tools']) walk(path.join(root, d));
if (offenders.length) {
  console.error(`a host is imported from: ${offenders.join(', ')}`);
  process.exit(1);
}
console.log(`no import cycles in ${dirs.length} packages; no host imports another`);
