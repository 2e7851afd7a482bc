// The README's typical setup and its admin tour, as written: their shell blocks (between the typical-setup and
// admin-tour markers) run with bash against a fresh private database and every step must succeed, so the README
// cannot rot again. They run in a sandbox of the checkout (testkit's checkoutSandbox): the client key files the
// setup writes land in the test's temporary directory, never over or instead of a person's own in the checkout.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type CheckoutSandbox, checkoutSandbox, openPrivateDb, type PrivateDb, testEnv } from '@svc/testkit';

const ROOT = path.resolve(__dirname, '..');
/** The files the typical setup writes in the directory it runs in. */
const KEY_FILES = ['backend-ed25519.jwk.json', 'backend-ed25519.pub.jwk.json'];

/** What the checkout holds under each key file's name: a digest of its bytes, or absent. */
function checkoutKeyFiles(): Record<string, string> {
  return Object.fromEntries(
    KEY_FILES.map((f) => {
      const file = path.join(ROOT, f);
      return [f, existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'absent'];
    }),
  );
}

/** The shell block between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
function markedBlock(readme: string, name: string): string {
  const m = new RegExp(`<!-- ${name}:start -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`).exec(
    readme,
  );
  if (!m?.[1]) throw new Error(`README has no ${name} block`);
  return m[1];
}

let priv: PrivateDb;
let sandbox: CheckoutSandbox;
beforeAll(async () => {
  priv = await openPrivateDb({ prefix: 'readme' });
  sandbox = checkoutSandbox(ROOT, KEY_FILES);
});
afterAll(async () => {
  sandbox.remove();
  await priv.drop();
});

test("the README's typical setup and then its admin tour run step by step on a fresh database", async () => {
  // Whatever the checkout holds under the key files' names (a person's own key, or nothing) stays as it is.
  const before = checkoutKeyFiles();
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const script = `${markedBlock(readme, 'typical-setup')}\n${markedBlock(readme, 'admin-tour')}`;
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: sandbox.dir,
    env: { ...process.env, ...testEnv({ DATABASE_URL: priv.url }) },
    encoding: 'utf8',
    // About 30 admin runs, each a process start: 165 s on this 2-core machine under a load of 15.
    timeout: 480_000,
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
  // The key files were written in the sandbox, and the checkout's are what they were.
  expect(KEY_FILES.filter((f) => existsSync(path.join(sandbox.dir, f)))).toEqual(KEY_FILES);
  expect(checkoutKeyFiles()).toEqual(before);
  // The tour's changes: the OIDC client's logout URIs, a new secret printed once, a public client with the web
  // origin, the rule added then removed.
  const clients = await priv.db.oidcClient.findMany({ where: { applicationId: app.id } });
  const client = clients.find((c) => c.authMethod === 'client_secret_basic');
  expect(client?.webOrigins).toEqual([]);
  expect(client?.postLogoutRedirectUris).toEqual(['https://acme.example/', 'https://acme.example/bye']);
  // The browser application's own public client holds the web origin.
  const spa = clients.find((c) => c.authMethod === 'none');
  expect(spa?.webOrigins).toEqual(['https://acme.example']);
  expect(run.stdout).toMatch(
    new RegExp(`\\{"clientId":"${client?.clientId}","clientSecret":"oidcs_[0-9a-f]{64}"\\}`),
  );
  const rules = await priv.db.authenticationRule.findMany({ where: { applicationId: app.id } });
  expect(rules.map((r) => r.method)).not.toContain('PUBLIC_KEY_DIRECT');
  // --format table: the title and header lines a person reads.
  expect(run.stdout).toMatch(/^applications\napplicationAnchor +status/m);
  expect(run.stdout).toMatch(/^account\nFIELD +VALUE\n/m);
}, 540_000);
