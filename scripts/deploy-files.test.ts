// One way to run a host in production: the dist/ bundles `pnpm build` writes, started by node alone. No deploy
// file (Procfile, systemd unit, Kubernetes manifests, Dockerfile, observability) runs tsx, pnpm or npx, which would
// need a checkout with its node_modules on the production machine.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { manifestMemoryLimitMiB } from '../bench/memory-limit';
import { builtHosts } from './build';

const repo = path.resolve(__dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

/** Every deploy file but the prose (Markdown), with its comment lines dropped (they may name the tools). */
const deployFiles = [...files(path.join(repo, 'deploy')), path.join(repo, 'Dockerfile')]
  .filter((f) => !f.endsWith('.md'))
  .map((f) => ({
    file: path.relative(repo, f),
    text: readFileSync(f, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*#/.test(line))
      .join('\n'),
  }));

describe('deploy files', () => {
  it('are found (Procfile, the systemd unit, the manifests, the Dockerfile)', () => {
    const names = deployFiles.map((d) => d.file);
    expect(names).toEqual(
      expect.arrayContaining(['deploy/Procfile', 'deploy/systemd/signin@.service', 'Dockerfile']),
    );
    expect(names.filter((n) => n.startsWith('deploy/k8s/')).length).toBeGreaterThan(10);
  });

  it.each(deployFiles.map((d) => [d.file, d.text]))('%s runs neither tsx, pnpm nor npx', (_file, text) => {
    expect(text).not.toMatch(/\b(tsx|pnpm|npx)\b/);
  });

  it('the Procfile starts every host and the worker from its dist/ bundle', () => {
    const lines = readFileSync(path.join(repo, 'deploy', 'Procfile'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.sort()).toEqual(
      builtHosts()
        .map((h) => `${h}: node dist/${h}/main.js`)
        .sort(),
    );
  });

  it('the systemd unit starts the instance host from its dist/ folder', () => {
    const unit = readFileSync(path.join(repo, 'deploy', 'systemd', 'signin@.service'), 'utf8');
    expect(unit).toMatch(/^WorkingDirectory=\/opt\/signin\/dist\/%i$/m);
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node main\.js$/m);
  });

  it('the systemd unit limits memory as the manifests do (V8 sizes its heap from the limit)', () => {
    const unit = readFileSync(path.join(repo, 'deploy', 'systemd', 'signin@.service'), 'utf8');
    const limits = builtHosts().map((h) => manifestMemoryLimitMiB(h));
    expect(new Set(limits).size).toBe(1);
    expect(unit).toMatch(new RegExp(`^MemoryMax=${limits[0]}M$`, 'm'));
  });
});
