// One Node version everywhere: .node-version (what scripts/use-node.sh brings), .nvmrc, `engines`, @types/node,
// esbuild's target, the Dockerfile's base image and the runtime these tests run on (CI's, through scripts/test.sh).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dockerfilePath } from './dockerfile';

const root = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const version = read('.node-version').trim();
const major = version.split('.')[0];
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('the Node version', () => {
  it('is one exact Node 24 LTS release in .node-version and .nvmrc', () => {
    expect(version).toMatch(/^24\.\d+\.\d+$/);
    expect(read('.nvmrc').trim()).toBe(version);
  });

  it('is what engines, @types/node, the build target and the image name', () => {
    const [, minor] = version.split('.');
    expect(pkg.engines.node).toMatch(new RegExp(`^\\^${major}\\.(\\d+)\\.0$`));
    expect(Number(/\.(\d+)\./.exec(pkg.engines.node)?.[1])).toBeLessThanOrEqual(Number(minor));
    expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${major}\\.`));
    expect(read('scripts/build.ts')).toContain(`target: 'node${major}'`);
    expect(readFileSync(dockerfilePath, 'utf8')).toMatch(
      new RegExp(`^ARG NODE_IMAGE=node:${version.replaceAll('.', '\\.')}-slim@sha256:[0-9a-f]{64}$`, 'm'),
    );
  });

  it('has the npm registry integrity of both Linux builds pinned in scripts/use-node.sh', () => {
    const script = read('scripts/use-node.sh');
    for (const arch of ['x64', 'arm64'])
      expect(script).toMatch(
        new RegExp(
          `^\\s*${version.replaceAll('.', '\\.')}-${arch}\\) echo 'sha512-[A-Za-z0-9+/]{86}==' ;;$`,
          'm',
        ),
      );
  });

  it('is the runtime running these tests', () => {
    expect(process.version.slice(1).split('.')[0]).toBe(major);
  });
});
