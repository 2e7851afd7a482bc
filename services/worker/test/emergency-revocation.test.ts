// Emergency revocation through `pnpm admin keys revoke`, seen by a session host running as a separate process:
// the key leaves its fresh JWK Set responses and tokens it signed fail introspection at once (Redis pub/sub, with
// a key cache TTL far longer than the test), and every key ring signs with the replacement.
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { postJson, provisionAccount, provisionApp, useInfra, waitUntil } from '@svc/testkit';
import { type Child, freePort, spawnTsx } from './processes';

const infra = useInfra();
let host: Child;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  host = spawnTsx('services/session/src/main.ts', {
    PORT: String(port),
    BIND_HOST: '127.0.0.1',
    KEY_CACHE_TTL_MS: '3600000',
    LOG_LEVEL: 'silent',
  });
  await waitUntil(async () => (await fetch(`${url}/healthz`)).ok, 60_000, 200);
}, 90_000);

afterAll(async () => {
  await host?.kill('SIGTERM');
});

const jwksKids = async (anchor: string) => {
  const res = await fetch(`${url}/applications/${anchor}/jwks.json`);
  expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  return ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
};

/** `pnpm admin ...args` as a developer runs it: the development KEK asked for by name (the tool never falls back). */
async function admin(args: string[]): Promise<{ code: number | null; out: Record<string, unknown> }> {
  const child = spawnTsx(
    'tools/admin/src/main.ts',
    { KEY_ENCRYPTION_KEY: 'development', LOG_LEVEL: 'silent' },
    args,
  );
  const code = await child.exited;
  return { code, out: child.lines[0] as Record<string, unknown> };
}

test('a revoked key leaves the other process at once: JWK Set, introspection and signing', async () => {
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const other = await provisionApp(infra);
  const account = await provisionAccount(infra);
  const application = await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor });
  if (!application) throw new Error('no application');
  const issue = () =>
    issueSession(infra.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: account.id },
      authMethod: 'ACCESS_KEY_DIRECT',
    });
  const before = await issue();
  const kid = JSON.parse(Buffer.from(before.accessToken.split('.')[0] as string, 'base64url').toString()).kid;

  // The other process has loaded and cached the key (its cache would keep it for an hour).
  expect(await jwksKids(app.anchor)).toContain(kid);
  const otherKids = await jwksKids(other.anchor);
  const active = await postJson(`${url}/introspect`, { accessToken: before.accessToken });
  expect(active.status).toBe(200);
  expect(active.body.status).toBe('active');

  const revoked = await admin(['keys', 'revoke', '--app', app.anchor, '--kid', kid]);
  expect(revoked.code).toBe(0);
  expect(revoked.out.kids).not.toContain(kid);
  expect(revoked.out.warning).toBeUndefined();

  // Pub/sub reaches the other process within moments, far inside its cache TTL.
  // Any ceiling far below the TTL (1 h) proves pub/sub; a generous one keeps a loaded machine from failing it.
  await waitUntil(async () => !(await jwksKids(app.anchor)).includes(kid), 60_000);
  const refused = await postJson(`${url}/introspect`, { accessToken: before.accessToken });
  expect(refused.status).toBe(401);
  expect(refused.body.reason).toBe('AccessTokenInvalid');

  // This process's key ring signs with the replacement, which the other process publishes and accepts.
  // This ring keeps keys 30 s (the default): a ceiling under that still proves the announcement, not the TTL.
  await waitUntil(async () => (await infra.keyRing.signer(application.id))?.kid !== kid, 20_000);
  const after = await issue();
  const newKid = JSON.parse(
    Buffer.from(after.accessToken.split('.')[0] as string, 'base64url').toString(),
  ).kid;
  expect(newKid).not.toBe(kid);
  expect(await jwksKids(app.anchor)).toContain(newKid);
  expect((await postJson(`${url}/introspect`, { accessToken: after.accessToken })).body.status).toBe(
    'active',
  );

  // Revocation of one application leaves another untouched.
  expect(await jwksKids(other.anchor)).toEqual(otherKids);
  // Revoking again is a no-op; an unknown kid is a clear error.
  expect((await admin(['keys', 'revoke', '--app', app.anchor, '--kid', kid])).code).toBe(0);
  const unknown = await admin(['keys', 'revoke', '--app', app.anchor, '--kid', 'nope']);
  expect(unknown.code).not.toBe(0);
}, 150_000);
