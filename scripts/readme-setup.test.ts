// The README's typical setup, as written: its shell block (between the typical-setup markers) runs with bash against
// a fresh private database and every step must succeed, so the README cannot rot again.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { openPrivateDb, type PrivateDb, testEnv } from '@svc/testkit';

const ROOT = path.resolve(__dirname, '..');
const KEY_FILES = ['backend-ed25519.jwk.json', 'backend-ed25519.pub.jwk.json'].map((f) => path.join(ROOT, f));

function typicalSetup(readme: string): string {
  const m = /<!-- typical-setup:start -->\n```sh\n([\s\S]*?)```\n<!-- typical-setup:end -->/.exec(readme);
  if (!m?.[1]) throw new Error('README has no typical-setup block');
  return m[1];
}

let priv: PrivateDb;
beforeAll(async () => {
  priv = await openPrivateDb({ prefix: 'readme' });
});
afterAll(async () => {
  for (const f of KEY_FILES) rmSync(f, { force: true });
  await priv.drop();
});

test("the README's typical setup runs step by step on a fresh database", async () => {
  // The block writes its key files in the repository root; never overwrite someone's own.
  expect(KEY_FILES.filter(existsSync)).toEqual([]);
  const script = typicalSetup(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: { ...process.env, ...testEnv({ DATABASE_URL: priv.url }) },
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({
    status: 0,
    stderr: '',
  });
  const app = await priv.db.application.findUniqueOrThrow({
    where: { anchor: 'acme-game' },
    include: { returnRules: true, clientKeys: true },
  });
  expect(app.returnRules.map((r) => r.method)).toContain('CALLBACK');
  expect(app.clientKeys).toHaveLength(1);
}, 300_000);
