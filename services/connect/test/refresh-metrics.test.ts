// Connect's /refresh counted on the host's /metrics as every host counts its refreshes: a reused refresh token
// raises the very series the family-compromise alert reads (deploy/observability RefreshFamilyCompromisedSpike),
// a rotation counts as rotated and as a pair issued, and a token that does not verify counts under the same label
// the session host answers it with (connect answers RefreshTokenNotFound); concurrent presentations, lost races
// (RefreshTokenRotationRaceLost on the wire) and reuse alike, all count on the alert's series.
import { createMetrics } from '@svc/platform';
import {
  alertSeries,
  openInfra,
  postJson,
  provisionAccount,
  provisionBackend,
  scrapeCounter,
  uniqueName,
} from '@svc/testkit';
import { acceptCurrentTerms, type ConnectHost, realizeFor, startConnect } from './helpers';

const metrics = createMetrics(uniqueName('connect-refresh'));
const infra = openInfra();
let host: ConnectHost;
beforeAll(async () => {
  host = await startConnect(infra, { metrics });
});
afterAll(async () => {
  await host.close();
  await infra.close();
});

async function signedIn(): Promise<{ refreshToken: string }> {
  const backend = await provisionBackend(infra, host.url);
  const est = await backend.establish({});
  const account = await provisionAccount(infra);
  await acceptCurrentTerms(infra, account.id);
  const confirmationKey = await realizeFor(infra, est.body.exposureKey, account.id);
  const { exposureKey, hiddenKey } = est.body;
  const res = await postJson(`${host.url}/redeem`, { exposureKey, hiddenKey, confirmationKey });
  expect(res.status).toBe(200);
  return res.body;
}

const refresh = (refreshToken: string) => postJson(`${host.url}/refresh`, { refreshToken });

const counts = async () => {
  const compromise = alertSeries('RefreshFamilyCompromisedSpike');
  return {
    alerted: await scrapeCounter(metrics, compromise.name, compromise.labels),
    rotated: await scrapeCounter(metrics, 'refresh_outcomes_total', { outcome: 'rotated' }),
    invalid: await scrapeCounter(metrics, 'refresh_outcomes_total', { outcome: 'RefreshTokenInvalid' }),
    issued: await scrapeCounter(metrics, 'tokens_issued_total', { method: 'refresh' }),
  };
};

test('the alert reads RefreshTokenFamilyCompromised from refresh_outcomes_total', () => {
  expect(alertSeries('RefreshFamilyCompromisedSpike')).toEqual({
    name: 'refresh_outcomes_total',
    labels: { outcome: 'RefreshTokenFamilyCompromised' },
  });
});

test('a rotation, then reuse of the consumed token: rotated once, and the series the alert reads raised', async () => {
  const s = await signedIn();
  const before = await counts();
  const next = await refresh(s.refreshToken);
  expect(next.status).toBe(200);
  expect(await counts()).toEqual({ ...before, rotated: before.rotated + 1, issued: before.issued + 1 });

  const reuse = await refresh(s.refreshToken);
  expect(reuse.status).toBe(401);
  expect(reuse.body).toEqual({ reason: 'RefreshTokenFamilyCompromised' });
  expect(await counts()).toEqual({
    ...before,
    rotated: before.rotated + 1,
    issued: before.issued + 1,
    alerted: before.alerted + 1,
  });
});

test('a token that does not verify: RefreshTokenNotFound on the wire, counted as RefreshTokenInvalid', async () => {
  const before = await counts();
  const res = await refresh(`${uniqueName('garbage')}.x.y`);
  expect(res.body).toEqual({ reason: 'RefreshTokenNotFound' });
  expect(await counts()).toEqual({ ...before, invalid: before.invalid + 1 });
});

test('concurrent presentations of one token: one rotation; every lost race and reuse on the series the alert reads', async () => {
  const s = await signedIn();
  const before = await counts();
  const results = await Promise.all(Array.from({ length: 8 }, () => refresh(s.refreshToken)));
  expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  const refused = results.filter((r) => r.status !== 200);
  // Connect answers a lost race RefreshTokenRotationRaceLost and a later presentation RefreshTokenFamilyCompromised;
  // both revoke the family, and both are counted under the label the alert reads.
  for (const r of refused) {
    expect(r.status).toBe(401);
    expect(['RefreshTokenRotationRaceLost', 'RefreshTokenFamilyCompromised']).toContain(r.body.reason);
  }
  expect(await counts()).toEqual({
    ...before,
    rotated: before.rotated + 1,
    issued: before.issued + 1,
    alerted: before.alerted + 7,
  });
});
