// The issuance core's in-process caches expire by the host's Clock, not by waiting: an application's context and
// the current terms are reused while the clock stands inside the window and read again once it has moved past it.
import type { Db } from '@svc/db';
import { setAppStatus } from '@svc/provisioning';
import { ensureBaselineTerms, provisionApp, settableClock, useInfra } from '@svc/testkit';
import { createAgreementsStore } from '../store/agreements';
import { createApplicationCache } from './application-context';
import type { AgreementsPort } from './ports';
import { createTermsCache } from './snapshot';

const infra = useInfra();
beforeAll(() => ensureBaselineTerms(infra.db));

test('an application context is reused for APP_CACHE_TTL_MS by the clock, then read again', async () => {
  const clock = settableClock();
  const apps = createApplicationCache(infra.issuance.ports.applications, 2000, clock);
  const app = await provisionApp(infra);
  expect((await apps.get(app.anchor))?.status).toBe('ACTIVE');
  await setAppStatus(infra.provisioning, app.anchor, 'SUSPENDED');
  clock.advance(1999);
  expect((await apps.get(app.anchor))?.status).toBe('ACTIVE');
  clock.advance(1);
  expect((await apps.get(app.anchor))?.status).toBe('SUSPENDED');
});

/** The agreements store, counting its reads of the current terms. */
function countingTermsReads(db: Db): { agreements: AgreementsPort; reads: () => number } {
  let reads = 0;
  const store = createAgreementsStore(db);
  const agreements: AgreementsPort = {
    ...store,
    currentTerms: () => {
      reads++;
      return store.currentTerms();
    },
  };
  return { agreements, reads: () => reads };
}

test('the current terms are reused for TERMS_CACHE_MS by the clock, then read again; 0 reads every time', async () => {
  const clock = settableClock();
  const { agreements, reads } = countingTermsReads(infra.db);
  const terms = createTermsCache(agreements, 1000, clock);
  const first = await terms.current();
  expect(first?.revision).toEqual(expect.any(Number));
  clock.advance(999);
  expect(await terms.current()).toBe(first);
  expect(reads()).toBe(1);
  clock.advance(1);
  expect((await terms.current())?.revision).toBe(first?.revision);
  expect(reads()).toBe(2);

  const off = createTermsCache(agreements, 0, clock);
  await off.current();
  await off.current();
  expect(reads()).toBe(4);
});
