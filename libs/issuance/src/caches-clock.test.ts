// The issuance core's in-process caches expire by the host's Clock, not by waiting: an application's context and
// the current terms are reused while the clock stands inside the window and read again once it has moved past it.
import type { Db } from '@svc/db';
import { setAppStatus } from '@svc/provisioning';
import { ensureBaselineTerms, provisionApp, settableClock, useInfra } from '@svc/testkit';
import { createApplicationCache } from './application-context';
import { createTermsCache } from './snapshot';

const infra = useInfra();
beforeAll(() => ensureBaselineTerms(infra.db));

test('an application context is reused for APP_CACHE_TTL_MS by the clock, then read again', async () => {
  const clock = settableClock();
  const apps = createApplicationCache(infra.db, 2000, clock);
  const app = await provisionApp(infra);
  expect((await apps.get(app.anchor))?.status).toBe('ACTIVE');
  await setAppStatus(infra.db, app.anchor, 'SUSPENDED');
  clock.advance(1999);
  expect((await apps.get(app.anchor))?.status).toBe('ACTIVE');
  clock.advance(1);
  expect((await apps.get(app.anchor))?.status).toBe('SUSPENDED');
});

/** The same database, counting the reads of the current terms (every other call passes through untouched). */
function countingTermsReads(db: Db): { db: Db; reads: () => number } {
  let reads = 0;
  const documents = new Proxy(db.agreementDocument, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'findFirst') return value;
      return (...args: unknown[]) => {
        reads++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const counted = new Proxy(db, {
    get: (target, prop, receiver) =>
      prop === 'agreementDocument' ? documents : Reflect.get(target, prop, receiver),
  });
  return { db: counted, reads: () => reads };
}

test('the current terms are reused for TERMS_CACHE_MS by the clock, then read again; 0 reads every time', async () => {
  const clock = settableClock();
  const { db, reads } = countingTermsReads(infra.db);
  const terms = createTermsCache(db, 1000, clock);
  const first = await terms.current();
  expect(first?.revision).toEqual(expect.any(Number));
  clock.advance(999);
  expect(await terms.current()).toBe(first);
  expect(reads()).toBe(1);
  clock.advance(1);
  expect((await terms.current())?.revision).toBe(first?.revision);
  expect(reads()).toBe(2);

  const off = createTermsCache(db, 0, clock);
  await off.current();
  await off.current();
  expect(reads()).toBe(4);
});
