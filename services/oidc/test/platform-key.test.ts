// The OIDC host makes the platform ID-token key set's first key at start-up, before it listens (so a /token right
// after start signs), and two replicas starting at once on a fresh database make exactly one.
import { type ChildHost, openPrivateDb, type PrivateDb, spawnHost, uniqueName } from '@svc/testkit';

let fresh: PrivateDb;
const hosts: ChildHost[] = [];

beforeAll(async () => {
  fresh = await openPrivateDb({ prefix: 'oidc_first_key' });
}, 120_000);

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.kill()));
  await fresh?.drop();
});

test('two replicas starting at once on a fresh database: one ACTIVE platform key, there before either listens', async () => {
  const env = { DATABASE_URL: fresh.url, OIDC_REDIS_PREFIX: uniqueName('oidckey') };
  hosts.push(
    ...(await Promise.all([
      spawnHost('services/oidc/src/main.ts', env),
      spawnHost('services/oidc/src/main.ts', env),
    ])),
  );
  // Both listen and no /readyz was asked: start-up itself made the key, once.
  const keys = await fresh.db.signingKey.findMany({ where: { scope: 'OIDC' }, select: { status: true } });
  expect(keys).toEqual([{ status: 'ACTIVE' }]);
  for (const h of hosts) {
    const jwks = (await (await fetch(`${h.url}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
    expect(jwks.keys).toHaveLength(1);
  }
}, 120_000);
