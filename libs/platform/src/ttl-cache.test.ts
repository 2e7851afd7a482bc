// The hot paths' read-through cache on a settable clock: reuse inside the window, a reload once the clock passes
// it, nothing kept when off, failed loads forgotten, and the oldest key dropped past the bound.
import { settableClock } from '@svc/testkit';
import { createTtlCache } from './ttl-cache';

function counted() {
  const loads: string[] = [];
  return { loads, load: async (key: string) => loads.push(key) };
}

test('a value is reused until the clock has moved ttlMs past its load, then loaded again', async () => {
  const clock = settableClock(1_000_000);
  const cache = createTtlCache<string, number>({ ttlMs: 1000, clock, max: 10 });
  const { loads, load } = counted();
  expect(await cache.get('a', load)).toBe(1);
  clock.advance(999);
  expect(await cache.get('a', load)).toBe(1);
  clock.advance(1);
  expect(await cache.get('a', load)).toBe(2);
  expect(loads).toEqual(['a', 'a']);
});

test('ttlMs 0 loads on every call', async () => {
  const cache = createTtlCache<string, number>({ ttlMs: 0, clock: settableClock(), max: 10 });
  const { loads, load } = counted();
  await cache.get('a', load);
  await cache.get('a', load);
  expect(loads).toEqual(['a', 'a']);
});

test('a failed load is not remembered; delete and clear drop values at once', async () => {
  const clock = settableClock();
  const cache = createTtlCache<string, number>({ ttlMs: 1000, clock, max: 10 });
  await expect(cache.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  const { loads, load } = counted();
  await cache.get('a', load);
  cache.delete('a');
  await cache.get('a', load);
  cache.clear();
  await cache.get('a', load);
  expect(loads).toEqual(['a', 'a', 'a']);
});

test('past max keys the oldest load is dropped', async () => {
  const cache = createTtlCache<string, number>({ ttlMs: 1000, clock: settableClock(), max: 2 });
  const { loads, load } = counted();
  for (const key of ['a', 'b', 'c', 'b', 'a']) await cache.get(key, load);
  expect(loads).toEqual(['a', 'b', 'c', 'a']);
});
