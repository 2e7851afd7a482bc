// Lints the Dockerfile (images cannot be built here): valid for Docker's parser (dockerfile-utils), and each
// host's target (with the stages it is built from) copies exactly the dist/<host>/ folder build.test.ts runs, as a non-root user, with a health
// check that needs no shell or curl, and node in exec form so SIGTERM reaches the host.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validate } from 'dockerfile-utils';
import { builtHosts } from './build';
import { dockerfilePath, healthcheckArgv, imageOf, only, dockerStages as stages } from './dockerfile';

const content = readFileSync(dockerfilePath, 'utf8');

describe('Dockerfile', () => {
  it('has no errors or warnings for Docker', () => {
    expect(validate(content)).toEqual([]);
  });

  it('bases every image on the pinned Node 24 slim, by digest, and runs it as a non-root user', () => {
    const version = readFileSync(path.join(__dirname, '..', '.node-version'), 'utf8').trim();
    expect(version).toMatch(/^24\./);
    expect(content).toMatch(
      new RegExp(`^ARG NODE_IMAGE=node:${version.replaceAll('.', '\\.')}-slim@sha256:[0-9a-f]{64}$`, 'm'),
    );
    const runtime = stages().find((s) => s.name === 'runtime');
    expect(runtime?.from).toBe('$' + '{NODE_IMAGE}'); // the ARG above, not a template
    const users = only(runtime!, 'USER');
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^[1-9]\d*:[1-9]\d*$/); // numeric, so Kubernetes can verify runAsNonRoot
    expect(only(runtime!, 'RUN')).toEqual([]);
    expect(content).not.toMatch(/curl|wget/);
  });

  it.each(builtHosts())('target %s copies exactly its dist folder and starts node in exec form', (host) => {
    const stage = stages().find((s) => s.name === host);
    expect(stage).toBeDefined();
    expect(only(stage!, 'USER')).toEqual([]); // inherits the non-root user
    expect(only(stage!, 'COPY')).toEqual([`--chown=0:0 dist/${host}/ /app/`]);
    // The image as built: the runtime stage's base, user and working directory, and nothing run into it.
    const image = imageOf(host);
    expect(image.from).toBe('$' + '{NODE_IMAGE}');
    expect(only(image, 'USER')).toEqual(only(stages().find((s) => s.name === 'runtime')!, 'USER'));
    expect(only(image, 'RUN')).toEqual([]); // nothing written into the image but the folder
    // The host's folder, and the admin tool beside it (deploy/README.md: kubectl exec ... node admin/main.js).
    expect(only(image, 'COPY')).toEqual([
      '--chown=0:0 dist/admin/ /app/admin/',
      `--chown=0:0 dist/${host}/ /app/`,
    ]);
    expect(only(image, 'CMD').map((c) => JSON.parse(c))).toEqual([['node', 'main.js']]);
    expect(only(image, 'HEALTHCHECK')).toHaveLength(1);
    const argv = healthcheckArgv(image) ?? [];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    expect(argv[2]).toContain(host === 'worker' ? '/metrics' : '/healthz');
  });

  it('has a target for no host that the build does not produce', () => {
    const targets = stages()
      .map((s) => s.name)
      .filter((n) => n && n !== 'runtime' && n !== 'http-host');
    expect(targets.sort()).toEqual(builtHosts().sort());
  });
});
