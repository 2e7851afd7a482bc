// Introspection's session cache expires by the host's Clock: a session record is reused while the clock stands
// inside SESSION_CACHE_MS, even after the row changed, and read again once the clock has moved past it.
import { moveSession } from '@svc/provisioning';
import { settableClock, useInfra } from '@svc/testkit';
import { createSessionCache } from '../src/store/session-cache';
import { freshSession } from './support';

const infra = useInfra();

test('a session record is reused for SESSION_CACHE_MS by the clock, then read again', async () => {
  const clock = settableClock();
  // No subscriber: only the clock can end a cached record here.
  const cache = createSessionCache(infra.db, undefined, 1000, clock);
  const { issued } = await freshSession(infra);
  expect((await cache.get(issued.sid))?.status).toBe('ACTIVE');
  await moveSession(infra.provisioning, issued.sid, 'suspend', clock);
  clock.advance(999);
  expect((await cache.get(issued.sid))?.status).toBe('ACTIVE');
  clock.advance(1);
  expect((await cache.get(issued.sid))?.status).toBe('SUSPENDED');
  await cache.close();
});
