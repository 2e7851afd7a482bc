// A key-encryption-key rotation while the host takes traffic (CONTRACTS.md "Distributed engines"): the fleet moves
// to a new KEY_ENCRYPTION_KEY with the old one in KEY_ENCRYPTION_KEYS_PREVIOUS, `secrets reseal` re-seals under
// load, then the old key is removed: no refresh, introspection or signing fails at any step. On a private database,
// since a reseal acts on every sealed secret.
import { randomBytes } from 'node:crypto';
import { type ProvisioningPorts, resealSecrets } from '@svc/provisioning';
import { createProvisioningPorts } from '@svc/provisioning/stores';
import {
  openInfra,
  openPrivateDb,
  type PrivateDb,
  postJson,
  startTestHost,
  TESTKIT_ACTOR,
  type TestInfra,
  testEnv,
} from '@svc/testkit';
import { kekFromBytes } from '@svc/token-core';
import { createSessionApp } from '../src/app';
import { sessionConfigFromEnv } from '../src/config';
import { openSessionDeps } from '../src/deps';
import { freshSession } from './support';

const OLD = randomBytes(32);
const NEW = randomBytes(32);

let pdb: PrivateDb;
/** The provisioning stores over the private database (what `pnpm admin secrets reseal` runs on). */
let provisioning: ProvisioningPorts;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'kek', terms: true });
  provisioning = createProvisioningPorts(pdb.db, { actor: TESTKIT_ACTOR });
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await pdb.drop();
});

/** A session host over the private database with the given keys. */
async function host(keys: { kek: Buffer; previous?: Buffer[] }): Promise<string> {
  const env = testEnv({
    DATABASE_URL: pdb.url,
    KEY_ENCRYPTION_KEY: keys.kek.toString('base64'),
    KEY_ENCRYPTION_KEYS_PREVIOUS: keys.previous?.map((k) => k.toString('base64')).join(','),
    REFRESH_RETRY_WINDOW_MS: '0',
  });
  const deps = openSessionDeps(sessionConfigFromEnv(env), Date.now);
  const running = await startTestHost(createSessionApp(deps));
  closers.push(async () => {
    await running.close();
    await deps.close();
  });
  return running.url;
}

function infraUnder(kek: Buffer, previous: Buffer[] = []): TestInfra {
  const infra = openInfra({ over: pdb.db, kek: kekFromBytes(kek, previous) });
  closers.push(() => infra.close());
  return infra;
}

/** One refresh-token chain: each step refreshes and introspects the new access token; returns the failures. */
function chain(refreshToken: string) {
  let token = refreshToken;
  let access = '';
  const failures: string[] = [];
  return {
    failures,
    get access() {
      return access;
    },
    async step(url: string) {
      const r = await postJson(`${url}/refresh`, { refreshToken: token });
      if (r.status !== 200) {
        failures.push(`refresh ${r.status} ${JSON.stringify(r.body)}`);
        return;
      }
      token = r.body.refreshToken;
      access = r.body.accessToken;
      const i = await postJson(`${url}/introspect`, { accessToken: access });
      if (i.status !== 200 || i.body.status !== 'active') failures.push(`introspect ${i.status}`);
    },
  };
}

test('rotated under load, then the old key removed: nothing stops verifying or signing', async () => {
  const before = infraUnder(OLD);
  const { issued } = await freshSession(before);
  const oldHost = await host({ kek: OLD });
  const c = chain(issued.refreshToken);
  await c.step(oldHost);
  const issuedBefore = c.access;

  // The fleet moves to the new key, the old one opening only; a reseal runs while the chain keeps rotating.
  const bothHost = await host({ kek: NEW, previous: [OLD] });
  const rotating = (async () => {
    for (let i = 0; i < 30; i += 1) await c.step(bothHost);
  })();
  const first = await resealSecrets(provisioning, kekFromBytes(NEW, [OLD]), 1);
  await rotating;
  expect(first.resealed).toBeGreaterThanOrEqual(1);
  expect(await resealSecrets(provisioning, kekFromBytes(NEW, [OLD]))).toEqual({ resealed: 0 });
  const stillOld = await pdb.db.signingKey.count({ where: { kekId: { not: kekFromBytes(NEW).id } } });
  expect(stillOld).toBe(0);

  // The old key leaves the configuration: the host still opens every signing key (ready), signs and verifies.
  const newHost = await host({ kek: NEW });
  expect((await fetch(`${newHost}/readyz`)).status).toBe(200);
  for (let i = 0; i < 5; i += 1) await c.step(newHost);
  const old = await postJson(`${newHost}/introspect`, { accessToken: issuedBefore });
  expect([old.status, old.body.status]).toEqual([200, 'active']);
  const after = infraUnder(NEW);
  const fresh = chain((await freshSession(after)).issued.refreshToken);
  await fresh.step(newHost);
  expect([...c.failures, ...fresh.failures]).toEqual([]);
});

test('a secret no configured key opens stops the reseal with a message naming the variables, never a key', async () => {
  const stranger = randomBytes(32);
  await freshSession(infraUnder(stranger));
  const err = await resealSecrets(provisioning, kekFromBytes(NEW, [OLD])).catch((e: Error) => e);
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toMatch(
    /open under none of the configured keys.*KEY_ENCRYPTION_KEYS_PREVIOUS/,
  );
  expect((err as Error).message).not.toContain(stranger.toString('base64'));
  // With that key added it goes through, and a second run has nothing left.
  expect(
    (await resealSecrets(provisioning, kekFromBytes(NEW, [OLD, stranger]))).resealed,
  ).toBeGreaterThanOrEqual(1);
  expect(await resealSecrets(provisioning, kekFromBytes(NEW, [OLD, stranger]))).toEqual({ resealed: 0 });
});
