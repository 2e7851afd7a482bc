// A full key rotation driven by a controllable clock (prepublish, activate, retire, omit) while a verifier keeps a
// JWK Set cached for max-age and never refetches early: every token stays verifiable throughout.
import {
  activateNextKey,
  DEFAULT_JWKS_MAX_AGE_SECONDS,
  ID_TOKEN_TTL_MAX_SECONDS,
  jwksMaxAge,
  OIDC_SCOPE,
  runScheduledRotation,
} from '@svc/keyring';
import { provisionApp, settableClock, useInfra } from '@svc/testkit';
import { mintAccessToken } from '@svc/token-core';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { createWorkerPorts } from '../src/deps';
import { runRotationTick } from '../src/jobs/rotate-keys';
import { openPrivateDb, type PrivateDb } from './support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const schedule = { rotateEverySeconds: 2 * 86_400, prepublishSeconds: 3_600, keyCacheTtlMs: 30_000 };
const maxAgeMs = jwksMaxAge(DEFAULT_JWKS_MAX_AGE_SECONDS, schedule.prepublishSeconds) * 1000;

let pdb: PrivateDb;
const clock = settableClock();

beforeAll(async () => {
  pdb = await openPrivateDb();
});
const infra = useInfra(() => ({ over: pdb.db, clock }));
afterAll(() => pdb.drop());

test('the JWK Set max-age never exceeds the prepublication window nor 300 s', () => {
  expect(jwksMaxAge(300, 86_400)).toBe(300);
  expect(jwksMaxAge(300, 120)).toBe(120);
  expect(jwksMaxAge(60, 86_400)).toBe(60);
  expect(jwksMaxAge(900, 86_400)).toBe(300);
});

test('prepublish, activate, retire and omit, with a cached verifier working throughout', async () => {
  clock.set(Date.now());
  const t0 = clock();
  const a = await provisionApp(infra);
  const b = await provisionApp(infra);
  // App B was made ten days later: its schedule is its own.
  await pdb.db.signingKey.updateMany({
    where: { applicationId: b.applicationId },
    data: { activatedAt: new Date(t0 + 10 * DAY) },
  });
  const bKids = (await infra.keyRing.jwks(b.applicationId)).keys.map((k) => k.kid);
  const firstKid = (await infra.keyRing.signer(a.applicationId))?.kid;

  const ports = createWorkerPorts({ db: pdb.db, redis: infra.redis, kek: infra.issuance.kek });
  const tick = () =>
    runRotationTick({
      ports,
      clock,
      schedule,
      batchSize: 2,
    });

  // The verifier: fetches the JWK Set only when its cached copy is older than max-age.
  let cached: { set: JSONWebKeySet; fetchedAt: number } | undefined;
  const refreshIfStale = async () => {
    if (cached && clock() - cached.fetchedAt < maxAgeMs) return;
    infra.keyRing.invalidate(a.applicationId);
    cached = { set: { keys: (await infra.keyRing.jwks(a.applicationId)).keys as never }, fetchedAt: clock() };
  };
  const tokens: { token: string; exp: number; kid: string }[] = [];
  const signersSeen: string[] = [];
  const mint = async (ttlSeconds: number) => {
    const signer = await infra.keyRing.signer(a.applicationId);
    if (!signer) throw new Error('no signer');
    if (signersSeen.at(-1) !== signer.kid) {
      signersSeen.push(signer.kid);
      // A key that starts signing is already in the verifier's cached copy (fetched before this step's tick).
      expect(cached?.set.keys.map((k) => k.kid)).toContain(signer.kid);
    }
    const m = await mintAccessToken(signer, {
      issuer: 'https://issuer.test',
      audience: a.anchor,
      sid: 'sid_test',
      subject: 'sub',
      iat: Math.floor(clock() / 1000),
      ttlSeconds,
    });
    tokens.push({ token: m.token, exp: m.exp * 1000, kid: signer.kid });
  };
  const verifyAllUnexpired = async () => {
    const jwks = createLocalJWKSet(cached?.set as JSONWebKeySet);
    for (const tok of tokens.filter((x) => x.exp > clock() + 5000)) {
      await expect(jwtVerify(tok.token, jwks, { currentDate: new Date(clock()) })).resolves.toBeDefined();
    }
  };
  const step = async (ms: number) => {
    clock.advance(ms);
    await refreshIfStale();
    await tick();
    await mint(3 * 3600);
    await verifyAllUnexpired();
  };

  await refreshIfStale();
  // Coarse steps to just before the prepublication moment (47 h): nothing changes yet.
  while (clock() + 6 * HOUR <= t0 + 46 * HOUR) await step(6 * HOUR);
  expect(await pdb.db.signingKey.count({ where: { applicationId: a.applicationId } })).toBe(1);
  // A token with the longest default refresh lifetime, signed by the first key shortly before it retires.
  await mint(30 * 86_400);
  // Fine steps, shorter than max-age, through prepublication and activation.
  let nextSeenAt: number | undefined;
  while (clock() < t0 + 50 * HOUR) {
    await step(250_000);
    const next = await pdb.db.signingKey.findFirst({
      where: { applicationId: a.applicationId, status: 'NEXT' },
    });
    if (next && !nextSeenAt) {
      nextSeenAt = clock();
      expect(clock()).toBeGreaterThanOrEqual(t0 + 47 * HOUR);
      expect(next.activatesAt?.getTime()).toBeGreaterThanOrEqual(clock() + schedule.prepublishSeconds * 1000);
    }
  }
  expect(signersSeen).toHaveLength(2);
  const [k1, k2] = signersSeen;
  expect(k1).toBe(firstKid);
  const retired = await pdb.db.signingKey.findUniqueOrThrow({ where: { kid: k1 as string } });
  expect(retired.status).toBe('RETIRING');
  expect(retired.activatedAt && nextSeenAt).toBeTruthy();
  const activatedK2 = await pdb.db.signingKey.findUniqueOrThrow({ where: { kid: k2 as string } });
  expect(activatedK2.activatedAt!.getTime() - (nextSeenAt as number)).toBeGreaterThanOrEqual(HOUR);
  // Rotating A never touched B.
  expect((await infra.keyRing.jwks(b.applicationId)).keys.map((k) => k.kid)).toEqual(bKids);

  // Coarse steps through the retirement window: more rotations happen; the first key stays published while the
  // 30-day token it signed is valid, and is then omitted.
  while (clock() < retired.publishUntil!.getTime() + DAY) {
    await step(12 * HOUR);
    if (clock() < retired.publishUntil!.getTime()) expect(cached?.set.keys.map((k) => k.kid)).toContain(k1);
  }
  expect(cached?.set.keys.map((k) => k.kid)).not.toContain(k1);
  expect((await pdb.db.signingKey.findUniqueOrThrow({ where: { kid: k1 as string } })).status).toBe(
    'EXPIRED',
  );
  expect(signersSeen.length).toBeGreaterThan(10);

  // The OIDC scope rotates on the same schedule but publishes the most recently retired key only.
  const oidc = await pdb.db.signingKey.groupBy({ by: ['status'], where: { scope: 'OIDC' }, _count: true });
  const byStatus = Object.fromEntries(oidc.map((g) => [g.status, g._count]));
  expect(byStatus.ACTIVE).toBe(1);
  expect(byStatus.RETIRING).toBe(1);
  expect(byStatus.EXPIRED).toBeGreaterThan(0);
  infra.keyRing.invalidate(OIDC_SCOPE);
  const oidcKids = (await infra.keyRing.jwks(OIDC_SCOPE)).keys.map((k) => k.kid);
  expect(oidcKids.length).toBeGreaterThanOrEqual(2);
  expect(oidcKids.length).toBeLessThanOrEqual(3);
}, 180_000);

test('the OIDC set: active, next and the most recently retired key only; one retired key covers every ID token', async () => {
  const { kek } = infra.issuance;
  clock.set(Date.now() + 400 * DAY);
  const rotate = () => runScheduledRotation(pdb.db, kek, OIDC_SCOPE, schedule, new Date(clock()));
  const published = async () => {
    infra.keyRing.invalidate(OIDC_SCOPE);
    return (await infra.keyRing.jwks(OIDC_SCOPE)).keys.map((k) => k.kid);
  };
  const retiring = () => pdb.db.signingKey.count({ where: { scope: 'OIDC', status: 'RETIRING' } });
  await rotate();
  // A set the old rule left: every key it ever retired still inside its (year-long) window.
  for (let i = 0; i < 4; i++)
    await activateNextKey(pdb.db, kek, OIDC_SCOPE, {
      force: true,
      keyCacheTtlMs: 30_000,
      at: new Date(clock()),
    });
  await pdb.db.signingKey.updateMany({
    where: { scope: 'OIDC', status: 'EXPIRED' },
    data: { status: 'RETIRING', publishUntil: new Date(clock() + 300 * DAY) },
  });
  expect(await retiring()).toBeGreaterThanOrEqual(4);
  // One scheduled step cuts it to the most recently retired key, whatever the history.
  // The four activations above share one instant, so "most recently retired" breaks the tie as the key store
  // does (then by creation): ordering by retiredAt alone picked one of equals at random (a chance failure in CI).
  const newestRetired = await pdb.db.signingKey.findFirstOrThrow({
    where: { scope: 'OIDC', status: 'RETIRING' },
    orderBy: [{ retiredAt: 'desc' }, { createdAt: 'desc' }],
  });
  const cut = await rotate();
  expect(cut.expired).toBeGreaterThanOrEqual(3);
  expect(cut.changed).toBe(true);
  expect(await retiring()).toBe(1);
  const active = (await infra.keyRing.signer(OIDC_SCOPE))!.kid;
  expect((await published()).sort()).toEqual([active, newestRetired.kid].sort());

  // The normal schedule, hour by hour over three rotations: an ID token of the longest lifetime signed at any moment
  // verifies against the published set (and the key id_token_hint verification uses) until it expires.
  const tokens: { token: string; exp: number; kid: string }[] = [];
  const start = clock();
  const kidsSigning: string[] = [];
  while (kidsSigning.length < 4) {
    expect(clock()).toBeLessThan(start + 4 * schedule.rotateEverySeconds * 1000);
    clock.advance(HOUR);
    await rotate();
    const kids = await published();
    expect(kids.length).toBeLessThanOrEqual(3);
    expect(await retiring()).toBeLessThanOrEqual(1);
    const signer = (await infra.keyRing.signer(OIDC_SCOPE))!;
    if (kidsSigning.at(-1) !== signer.kid) kidsSigning.push(signer.kid);
    const m = await mintAccessToken(signer, {
      issuer: 'https://oidc.test',
      audience: 'client',
      sid: 'sid_test',
      subject: 'sub',
      iat: Math.floor(clock() / 1000),
      ttlSeconds: ID_TOKEN_TTL_MAX_SECONDS,
    });
    tokens.push({ token: m.token, exp: m.exp * 1000, kid: signer.kid });
    const jwks = createLocalJWKSet({ keys: (await infra.keyRing.jwks(OIDC_SCOPE)).keys as never });
    for (const t of tokens.filter((x) => x.exp > clock())) {
      await expect(jwtVerify(t.token, jwks, { currentDate: new Date(clock()) })).resolves.toBeDefined();
      expect(await infra.keyRing.verificationKey(OIDC_SCOPE, t.kid)).toBeDefined();
    }
  }
  // The id_token_hint window: keys retired two rotations ago or more are no longer held, so their (expired) tokens
  // name no one; the most recently retired one still is.
  const [first, second, third] = kidsSigning;
  for (const kid of [first!, second!]) {
    expect(await infra.keyRing.verificationKey(OIDC_SCOPE, kid)).toBeUndefined();
    expect(await pdb.db.signingKey.findFirstOrThrow({ where: { kid } })).toMatchObject({ status: 'EXPIRED' });
  }
  expect(await infra.keyRing.verificationKey(OIDC_SCOPE, third!)).toBeDefined();
}, 180_000);
