// The key ring behind its ports: a cached scope is served without another signing-key read until its TTL or a
// key-change message for it (or '*') evicts it; the Redis feed delivers publishKeyChange's messages to every ring.
import { randomBytes } from 'node:crypto';
import { generateSigningKey, kekFromBytes } from '@svc/token-core';
import { Redis } from 'ioredis';
import { createKeyRingOn } from './domain/key-ring';
import type { KeyChangeFeed, RingKey, SigningKeyStore } from './domain/ports';
import { createKeyChangeFeed, publishKeyChange } from './store/key-changes';

const kek = kekFromBytes(randomBytes(32));
const key = generateSigningKey(kek);
const ring: RingKey = {
  kid: key.kid,
  status: 'ACTIVE',
  publicJwk: key.publicJwk,
  privateKeyEnc: key.privateKeyEnc,
  publishUntil: null,
};

/** A signing-key store that answers one ACTIVE key for every scope and counts the ring reads per scope. */
function countingStore() {
  const reads = new Map<string, number>();
  const store = {
    async readRingKeys(scopeId: string) {
      reads.set(scopeId, (reads.get(scopeId) ?? 0) + 1);
      return [ring];
    },
  } as unknown as SigningKeyStore;
  return { store, reads: (scopeId: string) => reads.get(scopeId) ?? 0 };
}

/** A feed whose messages the test sends by hand. */
function handFeed() {
  let listener: ((scopeId: string) => void) | undefined;
  const feed: KeyChangeFeed = {
    listen: (l) => {
      listener = l;
    },
    close: async () => undefined,
  };
  return { feed, send: (scopeId: string) => listener?.(scopeId) };
}

test('a cached scope is read once; a change message for it, or for every scope, evicts it', async () => {
  const { store, reads } = countingStore();
  const { feed, send } = handFeed();
  const keyRing = createKeyRingOn(
    { keys: store, changes: feed },
    { kek, clock: Date.now, cacheTtlMs: 60_000 },
  );
  for (let i = 0; i < 3; i++) expect(await keyRing.verificationKey('a', key.kid)).toBeDefined();
  await keyRing.verificationKey('b', key.kid);
  expect([reads('a'), reads('b')]).toEqual([1, 1]);

  send('a');
  await keyRing.verificationKey('a', key.kid);
  await keyRing.verificationKey('b', key.kid);
  expect([reads('a'), reads('b')]).toEqual([2, 1]);

  send('*');
  await keyRing.verificationKey('a', key.kid);
  await keyRing.verificationKey('b', key.kid);
  expect([reads('a'), reads('b')]).toEqual([3, 2]);
  await keyRing.close();
});

test('past its TTL a scope is read again, by the ring clock', async () => {
  const { store, reads } = countingStore();
  let now = 1_000_000;
  const keyRing = createKeyRingOn({ keys: store }, { kek, clock: () => now, cacheTtlMs: 1000 });
  await keyRing.verificationKey('a', key.kid);
  now += 999;
  await keyRing.verificationKey('a', key.kid);
  expect(reads('a')).toBe(1);
  now += 1;
  await keyRing.verificationKey('a', key.kid);
  expect(reads('a')).toBe(2);
});

test('the Redis feed hears publishKeyChange on the key-change channel (the loop times out if it never does)', async () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const publisher = new Redis(url);
  const feed = createKeyChangeFeed(new Redis(url));
  const heard: string[] = [];
  feed.listen((scopeId) => heard.push(scopeId));
  const scope = `scope-${randomBytes(4).toString('hex')}`;
  try {
    // The subscription is asynchronous (and other replicas may listen on the same channel): publish until heard.
    while (!heard.includes(scope)) {
      await publishKeyChange(publisher, scope);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(heard).toContain(scope);
  } finally {
    await feed.close();
    await publisher.quit();
  }
});
