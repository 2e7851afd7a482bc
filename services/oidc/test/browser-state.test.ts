// The OIDC host's browser state in real Redis: a sign-in session survives across requests until ended, a new
// sign-in never reuses the old identifier, and a parked authorization request is finished exactly once; an expired
// one (by the host's clock) keeps only its return record, taken once, for a day.
import { createHash } from 'node:crypto';
import { createAccountsStore } from '@svc/issuance/stores';
import { createRedis } from '@svc/platform';
import { provisionAccount, settableClock, testUrls, uniqueName, useInfra } from '@svc/testkit';
import type { Redis } from 'ioredis';
import type { Interaction } from '../src/domain/ports';
import { signInCookie } from '../src/pages-config';
import { createInteractionStore, EXPIRED_RETURN_SECONDS } from '../src/store/interactions';
import { createSignInSessionStore } from '../src/store/sign-in-sessions';

// This file's own key prefix (OIDC_REDIS_PREFIX of a host).
const redisPrefix = uniqueName('oidc');

const infra = useInfra();
let redis: Redis;
beforeAll(() => {
  redis = createRedis(testUrls.redis);
});
afterAll(async () => {
  await redis.quit();
});

/** A sign-in of a new account under its current authority. */
async function signInOf(authTime: number, amr: string[]) {
  const { id } = await provisionAccount(infra);
  return {
    accountId: id,
    authTime,
    amr,
    authority: (await createAccountsStore(infra.db).currentAuthority(id))!,
  };
}

test('sign-in sessions: start, read, a new sign-in ends the old identifier, end', async () => {
  const sessions = createSignInSessionStore(redis, infra.issuance.ports.accounts, {
    redisPrefix,
    ttlSeconds: 60,
    clock: settableClock(),
  });
  const first = await sessions.start(undefined, await signInOf(100, ['hwk', 'user']));
  expect(await sessions.read(first.id)).toEqual({ ...first.session, handle: expect.any(String) });
  expect(await sessions.touch(first.id)).toBe(true);
  const other = await signInOf(200, ['hwk']);
  const second = await sessions.start(first.id, other);
  expect(second.id).not.toBe(first.id);
  expect(second.session.handle).not.toBe(first.session.handle);
  expect(await sessions.read(first.id)).toBeUndefined();
  expect(await sessions.touch(first.id)).toBe(false);
  expect((await sessions.read(second.id))?.accountId).toBe(other.accountId);
  await sessions.end(second.id);
  expect(await sessions.read(second.id)).toBeUndefined();
});

test('sign-in sessions: identifiers the host did not issue read as nothing', async () => {
  const sessions = createSignInSessionStore(redis, infra.issuance.ports.accounts, {
    redisPrefix,
    ttlSeconds: 60,
    clock: settableClock(),
  });
  for (const id of [undefined, '', 'x', 'A'.repeat(43), '../../etc'])
    expect(await sessions.read(id)).toBeUndefined();
  expect(signInCookie(true).name).toBe('__Host-oidc_session');
  expect(signInCookie(true).options).toMatchObject({
    secure: true,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
  });
  expect(signInCookie(false).name).toBe('oidc_session');
});

test('interactions: parked, read, taken once under concurrency', async () => {
  const store = createInteractionStore(redis, { redisPrefix, ttlSeconds: 60, clock: settableClock() });
  const interaction: Interaction = {
    clientId: 'c',
    redirectUri: 'https://rp.example/cb',
    responseType: 'code',
    responseMode: 'query',
    scopes: ['openid'],
    state: 's',
    prompt: [],
    createdAt: Date.now(),
  };
  const uid = await store.park(interaction);
  expect(uid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(await store.get(uid)).toEqual(interaction);
  expect(await store.flag(uid, { freshLogin: false })).toBe(true);
  expect(await store.get(uid)).toEqual({ ...interaction, freshLogin: false });
  await store.flag(uid, { heldOffered: true });
  await store.flag(uid, { consentReviewed: true });
  expect(await store.get(uid)).toEqual({
    ...interaction,
    freshLogin: false,
    heldOffered: true,
    consentReviewed: true,
  });
  expect(
    await redis.ttl(`${redisPrefix}:interaction:${createHash('sha256').update(uid).digest('hex')}`),
  ).toBeGreaterThan(50);
  const taken = await Promise.all(Array.from({ length: 8 }, () => store.take(uid)));
  expect(taken.filter(Boolean)).toEqual([
    { ...interaction, freshLogin: false, heldOffered: true, consentReviewed: true },
  ]);
  expect(await store.get(uid)).toBeUndefined();
  expect(await store.flag(uid, { heldOffered: true })).toBe(false);
  expect(await store.get(uid)).toBeUndefined();
  expect(await store.get('not-a-uid')).toBeUndefined();
  // A finished request leaves nothing to answer after its expiry.
  expect(await store.expiredReturn(uid)).toBeUndefined();
});

const digest = (uid: string) => createHash('sha256').update(uid).digest('hex');

test('interactions: expiry by the clock keeps the return record only, taken once, gone a day later', async () => {
  const clock = settableClock();
  const store = createInteractionStore(redis, { redisPrefix, ttlSeconds: 60, clock });
  const interaction: Interaction = {
    clientId: 'c',
    redirectUri: 'https://rp.example/cb',
    responseType: 'code id_token',
    responseMode: 'fragment',
    scopes: ['openid', 'email'],
    state: 'st-x',
    nonce: 'n-secret',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    loginHint: 'ada@example.com',
    prompt: [],
    createdAt: clock(),
  };
  const expected = {
    clientId: 'c',
    redirectUri: 'https://rp.example/cb',
    responseMode: 'fragment',
    state: 'st-x',
    expiredAt: interaction.createdAt + 60_000,
  };
  const uid = await store.park(interaction);
  // Redis lets the record outlive the request by a day; it holds nothing of the person or the request's secrets.
  const ttl = await redis.ttl(`${redisPrefix}:interaction-return:${digest(uid)}`);
  expect(ttl).toBeGreaterThan(60 + EXPIRED_RETURN_SECONDS - 10);
  expect(ttl).toBeLessThanOrEqual(60 + EXPIRED_RETURN_SECONDS);
  expect(JSON.parse((await redis.get(`${redisPrefix}:interaction-return:${digest(uid)}`)) ?? '')).toEqual(
    expected,
  );

  clock.advance(59_999);
  expect(await store.get(uid)).toEqual(interaction);
  clock.advance(1);
  expect(await store.get(uid)).toBeUndefined();
  expect(await store.flag(uid, { freshLogin: true })).toBe(false);
  expect(await store.take(uid)).toBeUndefined();
  expect(await store.expiredReturn(uid)).toEqual(expected);
  const taken = await Promise.all(Array.from({ length: 8 }, () => store.takeExpiredReturn(uid)));
  expect(taken.filter(Boolean)).toEqual([expected]);
  expect(await store.expiredReturn(uid)).toBeUndefined();
  expect(await redis.exists(`${redisPrefix}:interaction:${digest(uid)}`)).toBe(0);

  // A day past the expiry the record is no answer, even while Redis still holds it.
  const late = await store.park({ ...interaction, createdAt: clock() });
  clock.advance(60_000 + EXPIRED_RETURN_SECONDS * 1000 - 1);
  expect(await store.expiredReturn(late)).toMatchObject({ state: 'st-x' });
  clock.advance(1);
  expect(await store.expiredReturn(late)).toBeUndefined();
  expect(await store.takeExpiredReturn(late)).toBeUndefined();
});
