// The OIDC host's browser state in real Redis: a sign-in session survives across requests until ended, a new
// sign-in never reuses the old identifier, and a parked authorization request is finished exactly once.
import { createHash } from 'node:crypto';
import { createRedis } from '@svc/platform';
import { settableClock, testUrls } from '@svc/testkit';
import type { Redis } from 'ioredis';
import { createInteractionStore, type Interaction } from '../src/store/interactions';
import { createSignInSessions, signInCookie } from '../src/store/sign-in-sessions';

let redis: Redis;
beforeAll(() => {
  redis = createRedis(testUrls.redis);
});
afterAll(async () => {
  await redis.quit();
});

test('sign-in sessions: start, read, a new sign-in ends the old identifier, end', async () => {
  const sessions = createSignInSessions(redis, { ttlSeconds: 60, now: settableClock() });
  const first = await sessions.start(undefined, { accountId: 'acc-1', authTime: 100, amr: ['hwk', 'user'] });
  expect(await sessions.read(first.id)).toEqual({ ...first.session, handle: expect.any(String) });
  expect(await sessions.touch(first.id)).toBe(true);
  const second = await sessions.start(first.id, { accountId: 'acc-2', authTime: 200, amr: ['hwk'] });
  expect(second.id).not.toBe(first.id);
  expect(second.session.handle).not.toBe(first.session.handle);
  expect(await sessions.read(first.id)).toBeUndefined();
  expect(await sessions.touch(first.id)).toBe(false);
  expect((await sessions.read(second.id))?.accountId).toBe('acc-2');
  await sessions.end(second.id);
  expect(await sessions.read(second.id)).toBeUndefined();
});

test('sign-in sessions: identifiers the host did not issue read as nothing', async () => {
  const sessions = createSignInSessions(redis, { ttlSeconds: 60, now: settableClock() });
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
  const store = createInteractionStore(redis, { ttlSeconds: 60 });
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
    await redis.ttl(`oidc:interaction:${createHash('sha256').update(uid).digest('hex')}`),
  ).toBeGreaterThan(50);
  const taken = await Promise.all(Array.from({ length: 8 }, () => store.take(uid)));
  expect(taken.filter(Boolean)).toEqual([
    { ...interaction, freshLogin: false, heldOffered: true, consentReviewed: true },
  ]);
  expect(await store.get(uid)).toBeUndefined();
  expect(await store.flag(uid, { heldOffered: true })).toBe(false);
  expect(await store.get(uid)).toBeUndefined();
  expect(await store.get('not-a-uid')).toBeUndefined();
});
