// The subscription rules: URL shape, events, and in production the address check (unless allowed).

import type { Subscription, SubscriptionsStore } from './ports';
import { checkTarget, setSubscription } from './subscriptions';

const PROD = { production: true, allowPrivate: false };
const DEV = { production: false, allowPrivate: false };
const resolveTo = (addresses: string[]) => async () => addresses;

it('outside production: https anywhere, http only on a loopback host', async () => {
  const deps = { resolveHost: resolveTo(['10.0.0.1']), policy: DEV };
  await expect(checkTarget(deps, 'https://10.0.0.1/events')).resolves.toBeUndefined();
  await expect(checkTarget(deps, 'http://127.0.0.1:8080/events')).resolves.toBeUndefined();
  await expect(checkTarget(deps, 'http://localhost:8080/events')).resolves.toBeUndefined();
  await expect(checkTarget(deps, 'http://example.com/events')).rejects.toMatchObject({ reason: 'not_https' });
  for (const bad of [
    'ftp://example.com/',
    'https://user:pw@example.com/',
    'https://example.com/#x',
    'not a url',
  ])
    await expect(checkTarget(deps, bad)).rejects.toMatchObject({ reason: 'invalid_url' });
});

it('in production: private addresses refused unless EVENTS_ALLOW_PRIVATE_TARGETS', async () => {
  for (const a of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.3.4',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fc00::2',
    'fe80::1',
  ])
    await expect(
      checkTarget({ resolveHost: resolveTo([a]), policy: PROD }, 'https://h.example.com/'),
    ).rejects.toMatchObject({
      reason: 'private_target',
    });
  // One private address among public ones is enough to refuse.
  await expect(
    checkTarget(
      { resolveHost: resolveTo(['93.184.216.34', '10.0.0.1']), policy: PROD },
      'https://h.example.com/',
    ),
  ).rejects.toMatchObject({ reason: 'private_target' });
  await expect(
    checkTarget({ resolveHost: resolveTo(['93.184.216.34']), policy: PROD }, 'https://h.example.com/'),
  ).resolves.toBeUndefined();
  await expect(
    checkTarget(
      { resolveHost: resolveTo(['10.0.0.1']), policy: { production: true, allowPrivate: true } },
      'https://h.example.com/',
    ),
  ).resolves.toBeUndefined();
  await expect(
    checkTarget({ resolveHost: resolveTo(['127.0.0.1']), policy: PROD }, 'http://localhost/'),
  ).rejects.toMatchObject({
    reason: 'not_https',
  });
});

it('unknown events are refused and nothing is stored; naming every event stores all', async () => {
  const puts: string[][] = [];
  const store: SubscriptionsStore = {
    put: async (applicationId, url, events, at): Promise<Subscription> => {
      puts.push(events);
      return { applicationId, url, events, createdAt: at, updatedAt: at };
    },
    find: async () => undefined,
    remove: async () => false,
  };
  const deps = { subscriptions: store, resolveHost: resolveTo(['127.0.0.1']), policy: DEV };
  await expect(
    setSubscription(
      deps,
      'a',
      { url: 'https://x.example/', events: ['session-revoked', 'nope'] },
      new Date(),
    ),
  ).rejects.toMatchObject({ reason: 'unknown_event' });
  expect(puts).toEqual([]);
  const all = [
    'session-revoked',
    'credential-change',
    'account-disabled',
    'account-enabled',
    'identifier-changed',
  ];
  const view = await setSubscription(deps, 'a', { url: 'https://x.example/', events: all }, new Date());
  expect(puts).toEqual([[]]);
  expect(view).toMatchObject({ allEvents: true, events: all });
});
