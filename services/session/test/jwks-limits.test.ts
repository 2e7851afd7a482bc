// JWK Set limits over HTTP and `pnpm admin`: a set of 32 keys whose tokens can all be valid is served whole and a
// 33rd is refused (admin with and without --now, and the worker's scheduled step); `keys rotate` prepublishes (the
// old key signs until the new one has been published for the cache lifetime); and a verifier that missed a key
// change reloads the set when it meets an unknown kid.
import { activateNextKey, publishKeyChange, runScheduledRotation } from '@svc/keyring';
import { rotateKeysNow } from '@svc/provisioning';
import { openInfra, postJson, provisionAccount, provisionApp, waitUntil } from '@svc/testkit';
import { MAX_JWKS_KEYS, newKid, open, seal } from '@svc/token-core';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { admin } from '../../../tools/admin/test/run-admin';
import { issueFor, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
beforeAll(async () => {
  // A key cache far longer than the test: only pub/sub or an unknown kid makes the host reload a scope.
  h = await startSessionHost({ KEY_CACHE_TTL_MS: '3600000' });
});
afterAll(() => h.close());

/** The lifecycle's windows as an operator's defaults give them (KEY_CACHE_TTL_MS 30 s). */
const WINDOWS = { publishedSeconds: 330, keyCacheTtlMs: 30_000 };

const served = async (anchor: string) => {
  const res = await fetch(`${h.url}/applications/${anchor}/jwks.json`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { keys: { kid: string }[] }).keys;
};

async function signedToken(anchor: string) {
  const account = await provisionAccount(h.infra);
  return issueFor(h.infra, anchor, { kind: 'ACCOUNT', accountId: account.id });
}

/** Rotations through the real path before the set is filled: the first key retired, then one the rotation made. */
const ROTATIONS = 2;

/**
 * Fills an application's set up to MAX_JWKS_KEYS with retiring keys, each a copy of the newest one the rotations
 * retired (its public key and window; the private key re-sealed to the new kid), and tells the hosts. Thirty real
 * rotations would each generate an RSA-2048 key: 7 s of CPU on this machine, over two minutes at load 30, while
 * what the set's limit sees of a key is its row.
 */
async function fillWithRetiringKeys(applicationId: string) {
  const { db, issuance, redis } = h.infra;
  const model = await db.signingKey.findFirstOrThrow({
    where: { applicationId, status: 'RETIRING' },
    orderBy: { retiredAt: 'desc' },
  });
  const pem = open(issuance.kek, model.privateKeyEnc, model.kid);
  const published = await db.signingKey.count({
    where: { applicationId, status: { in: ['NEXT', 'ACTIVE', 'RETIRING'] } },
  });
  const rows = Array.from({ length: MAX_JWKS_KEYS - published }, () => {
    const kid = newKid();
    return {
      kid,
      scope: model.scope,
      applicationId,
      status: model.status,
      publicJwk: { ...(model.publicJwk as object), kid },
      privateKeyEnc: seal(issuance.kek, pem, kid),
      kekId: model.kekId,
      activatesAt: model.activatesAt,
      activatedAt: model.activatedAt,
      retiredAt: model.retiredAt,
      publishUntil: model.publishUntil,
    };
  });
  pem.fill(0);
  await db.signingKey.createMany({ data: rows });
  await publishKeyChange(redis, applicationId);
}

test('32 keys whose tokens can be valid are all served; a 33rd is refused by the admin and the worker', async () => {
  const app = await provisionApp(h.infra);
  const first = await signedToken(app.anchor);
  for (let i = 0; i < ROTATIONS; i++) {
    const { provisioning, issuance } = h.infra;
    await rotateKeysNow(provisioning, issuance.kek, app.anchor, WINDOWS, issuance.clock);
  }
  await fillWithRetiringKeys(app.applicationId);
  const kids = () => served(app.anchor).then((keys) => keys.map((k) => k.kid));
  await waitUntil(async () => (await kids()).length === MAX_JWKS_KEYS);
  const set = await served(app.anchor);
  expect(new Set(set.map((k) => k.kid)).size).toBe(MAX_JWKS_KEYS);
  // The first key retired long ago but its tokens live: it is still served, and its token verifies.
  await jwtVerify(first.accessToken, createLocalJWKSet({ keys: set as never }), { audience: app.anchor });

  for (const args of [[], ['--now']]) {
    const r = await admin(['keys', 'rotate', '--app', app.anchor, ...args]);
    expect(r.code).toBe(1);
    expect(r.json.error).toMatch(
      new RegExp(`^the JWK Set of ${app.anchor} already publishes 32 keys, the most it may hold`),
    );
    expect(r.json.error).toMatch(/the first retiring key leaves the set at \d{4}-/);
  }
  expect(await h.infra.db.signingKey.count({ where: { applicationId: app.applicationId } })).toBe(32);

  // The worker's step, with a successor due: nothing is prepublished while the set is full...
  const schedule = { rotateEverySeconds: 2, prepublishSeconds: 1, keyCacheTtlMs: WINDOWS.keyCacheTtlMs };
  const rotateAt = (at: Date) =>
    runScheduledRotation(h.infra.db, h.infra.issuance.kek, app.applicationId, schedule, at);
  const full = await rotateAt(new Date(Date.now() + 10_000));
  expect(full.keySetFull?.published).toBe(32);
  expect(full.prepublished).toBeUndefined();
  // ...and once the oldest retiring key's tokens have all expired, it leaves the set and the successor comes.
  const oldest = await h.infra.db.signingKey.findFirstOrThrow({
    where: { applicationId: app.applicationId, status: 'RETIRING' },
    orderBy: { publishUntil: 'asc' },
  });
  const room = await rotateAt(new Date(oldest.publishUntil!.getTime() + 1000));
  expect(room.expired).toBeGreaterThanOrEqual(1);
  expect(room.prepublished).toBeDefined();
}, 120_000);

test('keys rotate prepublishes: served at once, signing only after the cache lifetime; the worker activates it', async () => {
  const app = await provisionApp(h.infra);
  const [firstKid] = (await served(app.anchor)).map((k) => k.kid);
  const r = await admin(['keys', 'rotate', '--app', app.anchor]);
  expect(r.code).toBe(0);
  const next = await h.infra.db.signingKey.findFirstOrThrow({
    where: { applicationId: app.applicationId, status: 'NEXT' },
  });
  expect(r.json.kids.sort()).toEqual([firstKid, next.kid].sort());
  // Published at once (the admin told the hosts over Redis)...
  await waitUntil(async () => (await served(app.anchor)).some((k) => k.kid === next.kid));
  // ...while the old key keeps signing, until the new one has been published for max-age + the key cache (330 s).
  expect(next.activatesAt!.getTime() - next.createdAt.getTime()).toBe(330_000);
  expect(decodeProtectedHeader((await signedToken(app.anchor)).accessToken).kid).toBe(firstKid);
  const kek = h.infra.issuance.kek;
  const schedule = {
    rotateEverySeconds: 2_592_000,
    prepublishSeconds: 86_400,
    keyCacheTtlMs: WINDOWS.keyCacheTtlMs,
  };
  const early = new Date(next.activatesAt!.getTime() - 1000);
  expect(
    (await runScheduledRotation(h.infra.db, kek, app.applicationId, schedule, early)).activated,
  ).toBeUndefined();
  const due = await runScheduledRotation(h.infra.db, kek, app.applicationId, schedule, next.activatesAt!);
  expect([due.activated, due.retired]).toEqual([next.kid, firstKid]);
}, 60_000);

test('a verifier that missed a key change reloads the JWK Set on an unknown kid', async () => {
  const app = await provisionApp(h.infra);
  const before = await signedToken(app.anchor);
  const introspect = (accessToken: string) => postJson(`${h.url}/introspect`, { accessToken });
  expect((await introspect(before.accessToken)).body.status).toBe('active'); // the host now caches the scope
  // Rotated without telling anyone (no pub/sub message), as when an operator's Redis was unreachable.
  const { activated } = await activateNextKey(h.infra.db, h.infra.issuance.kek, app.applicationId, {
    force: true,
    keyCacheTtlMs: WINDOWS.keyCacheTtlMs,
    at: new Date(h.infra.issuance.clock()),
  });
  const fresh = openInfra();
  try {
    const account = await provisionAccount(fresh);
    const after = await issueFor(fresh, app.anchor, { kind: 'ACCOUNT', accountId: account.id });
    expect(decodeProtectedHeader(after.accessToken).kid).toBe(activated);
    expect((await introspect(after.accessToken)).body.status).toBe('active');
    expect((await served(app.anchor)).map((k) => k.kid)).toContain(activated);
  } finally {
    await fresh.close();
  }
});
