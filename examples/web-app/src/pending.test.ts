// The attack on the example's pending sign-ins: 150 anonymous starts, and starts left to linger; the store keeps
// at most its cap (oldest dropped) and forgets each after its lifetime.

import { exampleConfigFromEnv } from './config.ts';
import { PendingStore } from './pending.ts';

test('150 anonymous starts keep at most the cap, the oldest dropped first', () => {
  const store = new PendingStore<number>({ max: 100 });
  for (let i = 0; i < 150; i++) store.set(`start-${i}`, i);
  expect(store.size).toBe(100);
  expect(store.get('start-0')).toBeUndefined();
  expect(store.get('start-49')).toBeUndefined();
  expect(store.get('start-50')).toBe(50);
  expect(store.get('start-149')).toBe(149);
});

test('a pending sign-in expires after 10 minutes by default', () => {
  let now = 1_000_000;
  const store = new PendingStore<string>({ now: () => now });
  store.set('a', 'x');
  now += 10 * 60_000 - 1;
  expect(store.get('a')).toBe('x');
  now += 1;
  expect(store.get('a')).toBeUndefined();
  store.set('b', 'y');
  now += 10 * 60_000;
  expect(store.size).toBe(0);
});

test('the example listens on loopback unless told otherwise', () => {
  expect(exampleConfigFromEnv({ DEMO_DIR: '/nonexistent' }).host).toBe('127.0.0.1');
  expect(exampleConfigFromEnv({ DEMO_DIR: '/nonexistent', HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
});

test('the public URL defaults to http://localhost:PORT and decides the cookie names', () => {
  expect(exampleConfigFromEnv({ DEMO_DIR: '/nonexistent', PORT: '4181' }).publicUrl).toBe(
    'http://localhost:4181',
  );
  expect(
    exampleConfigFromEnv({ DEMO_DIR: '/nonexistent', PUBLIC_URL: 'https://app.example.test/' }).publicUrl,
  ).toBe('https://app.example.test');
});
