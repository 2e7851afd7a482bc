// NODE_ENV is read in one place (isProduction): only unset, `development` and `test` are not production, compared
// exactly; and no other source compares NODE_ENV itself.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, hostConfigOf, hostVars, readConfig } from './config';
import { isProduction } from './node-env';

test.each([undefined, '', '  ', 'development', 'test'])('NODE_ENV=%p is not production', (value) => {
  expect(isProduction({ NODE_ENV: value })).toBe(false);
});

test.each([
  'production',
  'Production',
  'PRODUCTION',
  'prod',
  'staging',
  'Development',
  'dev',
  ' test',
  'testing',
])('NODE_ENV=%p is production', (value) => {
  expect(isProduction({ NODE_ENV: value })).toBe(true);
});

test('NODE_ENV=prod makes the secrets required instead of handing out the development ones', () => {
  const env = { NODE_ENV: 'prod' };
  let problems: string[] = [];
  try {
    readConfig(hostVars('session', isProduction(env)), env, (v) => hostConfigOf('session', true, v));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = err.problems.map((p) => `${p.variable} ${p.problem}`);
  }
  expect(problems).toContain('KEY_ENCRYPTION_KEY is required in production');
});

const ROOT = path.resolve(__dirname, '../../..');
const SOURCE_DIRS = ['libs', 'services', 'tools', 'scripts', 'clients', 'examples', 'bench', 'test'];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'generated' || name.startsWith('.')) continue;
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...sources(file));
    else if (/\.(ts|tsx|js|mjs|cjs)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(file);
  }
  return out;
}

test('no source but node-env.ts compares NODE_ENV', () => {
  const comparing =
    /NODE_ENV\b\S*\s*[!=]==?|[!=]==?\s*\S*NODE_ENV\b|case\s+['"](production|development|test)['"]/;
  const offenders = SOURCE_DIRS.flatMap((d) => sources(path.join(ROOT, d)))
    .filter((f) => !f.endsWith(path.join('platform', 'src', 'node-env.ts')))
    .filter((f) => comparing.test(readFileSync(f, 'utf8')))
    .map((f) => path.relative(ROOT, f));
  expect(offenders).toEqual([]);
});
