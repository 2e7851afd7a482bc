// POST /redeem and the inquiry status poll over HTTP: every failure reason, single use across two replicas,
// TTL folding, the claim gate, and the token verified against the application's JWK Set.
import { grantClaim, setAppStatus } from '@svc/provisioning';
import {
  type Backend,
  expectTokenPair,
  postJson,
  provisionAccount,
  provisionBackend,
  tamper,
} from '@svc/testkit';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { sha256Hex } from '../src/domain/keys';
import { acceptCurrentTerms, realizeFor, useConnectPair } from './helpers';

const pair = useConnectPair();

async function readyAccount() {
  const account = await provisionAccount(pair.infra, { givenName: 'Ada' });
  await acceptCurrentTerms(pair.infra, account.id);
  return account;
}

async function realized(body: Record<string, unknown> = {}, b: Backend = pair.backend) {
  const est = await b.establish(body);
  expect(est.status).toBe(200);
  const account = await readyAccount();
  const confirmationKey = await realizeFor(pair.infra, est.body.exposureKey, account.id);
  return { ...est.body, confirmationKey, account } as {
    exposureKey: string;
    hiddenKey: string;
    confirmationKey: string;
    account: { id: string; email: string };
  };
}

const redeem = (
  k: { exposureKey: string; hiddenKey: string; confirmationKey: string },
  url = pair.host.url,
  headers: Record<string, string> = {},
) =>
  postJson(
    `${url}/redeem`,
    { exposureKey: k.exposureKey, hiddenKey: k.hiddenKey, confirmationKey: k.confirmationKey },
    headers,
  );

const stateOf = async (k: { exposureKey: string }) =>
  (await pair.infra.db.inquiry.findUniqueOrThrow({ where: { exposureKeyHash: sha256Hex(k.exposureKey) } }))
    .state;
const sessionsOf = (accountId: string) => pair.infra.db.session.count({ where: { accountId } });

describe('POST /redeem', () => {
  test('issues verifiable tokens with the five-key view and folded TTLs, once', async () => {
    const k = await realized({
      authenticationConstraints: [
        { method: 'PASSKEY_USERNAMELESS', payload: {}, accessTokenTtlSeconds: 600 },
      ],
      returnMethods: [{ type: 'STATUS_POLL' }],
    });
    const res = await redeem(k);
    expectTokenPair(res, ['accessToken', 'applicationAnchor', 'claims', 'refreshToken']);
    expect(res.body.claims.email).toEqual({ requirement: 'OFF', state: 'UNKNOWN' });
    const app = await pair.infra.db.application.findUniqueOrThrow({
      where: { anchor: pair.backend.fixture.anchor },
    });
    const jwks = createLocalJWKSet({ keys: (await pair.infra.keyRing.jwks(app.id)).keys as never });
    const access = await jwtVerify(res.body.accessToken, jwks, {
      audience: pair.backend.fixture.anchor,
      typ: 'vnd.service.application-access+jwt',
      algorithms: ['RS256'],
    });
    expect(access.payload.exp! - access.payload.iat!).toBe(600);
    expect(access.payload.sub).toBeTruthy();
    expect(access.payload.sub).not.toBe(k.account.id);
    const refresh = decodeJwt(res.body.refreshToken);
    expect(refresh.rotationVersion).toBe(1);
    expect(refresh.sid).toBe(access.payload.sid);
    const session = await pair.infra.db.session.findUniqueOrThrow({
      where: { id: String(access.payload.sid) },
    });
    expect(session.authMethod).toBe('PASSKEY_USERNAMELESS');

    const again = await redeem(k);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ reason: 'InquiryAlreadyRedeemed' });
  });

  test('InquiryNotRealized before the person has signed in', async () => {
    const est = await pair.backend.establish({});
    const res = await redeem({ ...est.body, confirmationKey: 'iqc_guess' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ reason: 'InquiryNotRealized' });
  });

  test('InquiryNotFound for any key of the triple that does not match, InvalidBody for a missing one', async () => {
    const k = await realized();
    for (const bad of [
      { ...k, exposureKey: 'iqe_unknown' },
      { ...k, hiddenKey: tamper(k.hiddenKey) },
      { ...k, confirmationKey: tamper(k.confirmationKey) },
      { ...k, hiddenKey: k.confirmationKey, confirmationKey: k.hiddenKey },
    ]) {
      const res = await redeem(bad);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ reason: 'InquiryNotFound' });
    }
    const missing = await postJson(`${pair.host.url}/redeem`, {
      exposureKey: k.exposureKey,
      hiddenKey: k.hiddenKey,
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ reason: 'InvalidBody' });
    expect((await postJson(`${pair.host.url}/redeem`, 'not json')).body).toEqual({ reason: 'InvalidBody' });
    // Nothing above consumed it.
    expect((await redeem(k)).status).toBe(200);
  });

  test('InquiryExpired past the inquiry lifetime', async () => {
    const k = await realized();
    await pair.infra.db.inquiry.update({
      where: { exposureKeyHash: sha256Hex(k.exposureKey) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const res = await redeem(k);
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ reason: 'InquiryExpired' });
  });

  test('single use across two replicas: 50 concurrent redeems give exactly one token pair and one session', async () => {
    const k = await realized();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => redeem(k, i % 2 ? pair.replica.url : pair.host.url)),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).map((r) => [r.status, r.body.reason])).toEqual(
      Array(49).fill([409, 'InquiryAlreadyRedeemed']),
    );
    expect(await sessionsOf(k.account.id)).toBe(1);
    expect(await stateOf(k)).toBe('REDEEMED');
  });

  test('AuthorizationArtifactStale when the account authority changed after sign-in; the inquiry stays realized', async () => {
    const k = await realized();
    await pair.infra.db.account.update({
      where: { id: k.account.id },
      data: { authorityVersion: { increment: 1 } },
    });
    const res = await redeem(k);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ reason: 'AuthorizationArtifactStale' });
    expect(await stateOf(k)).toBe('REALIZED');
    expect(await sessionsOf(k.account.id)).toBe(0);
  });

  test('LegalAgreementRequired leaves the inquiry redeemable: after the terms are accepted the retry issues', async () => {
    const est = await pair.backend.establish({});
    const account = await provisionAccount(pair.infra, { givenName: 'Ada', acceptTerms: false });
    const k = {
      ...est.body,
      confirmationKey: await realizeFor(pair.infra, est.body.exposureKey, account.id),
    };
    const res = await redeem(k);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('LegalAgreementRequired');
    expect(res.body.requiredRevision).toBeGreaterThanOrEqual(1);
    expect(typeof res.body.termsUrl).toBe('string');
    expect(res.body.confirmation).toBe(
      `I have read and accept the Basic Terms, revision ${res.body.requiredRevision}.`,
    );
    expect(res.body.agreement.locales['en-US'].contentSha256).toMatch(/^[0-9a-f]{64}$/);
    const zh = await redeem(k, pair.host.url, { 'accept-language': 'zh-CN' });
    expect([zh.status, zh.body.reason]).toEqual([403, 'LegalAgreementRequired']);
    expect(zh.body.confirmation).toBe(`我已阅读并接受基本条款（第 ${res.body.requiredRevision} 版）。`);
    expect(await stateOf(k)).toBe('REALIZED');
    expect(await sessionsOf(account.id)).toBe(0);
    await acceptCurrentTerms(pair.infra, account.id);
    expectTokenPair(await redeem(k), ['accessToken', 'applicationAnchor', 'claims', 'refreshToken']);
    expect((await redeem(k)).body).toEqual({ reason: 'InquiryAlreadyRedeemed' });
  });

  test('RequiredClaimDataMissing leaves the inquiry redeemable: once the data is given the retry issues', async () => {
    const b = await provisionBackend(pair.infra, pair.host.url, { claims: { staticAvatar: 'REQUIRED' } });
    const k = await realized({}, b);
    await grantClaim(pair.infra.provisioning, k.account.id, b.fixture.anchor, 'staticAvatar', 'GRANTED');
    const res = await redeem(k);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('RequiredClaimDataMissing');
    expect(res.body.claims.staticAvatar).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(res.body.errand.errandKey).toMatch(/^ernd_/);
    expect(await stateOf(k)).toBe('REALIZED');
    // What the errand's details step stores.
    await pair.infra.db.account.update({
      where: { id: k.account.id },
      data: { picture: 'https://img.example.test/a.png' },
    });
    const ok = await redeem(k);
    expect(ok.status).toBe(200);
    expect(ok.body.claims.staticAvatar).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
  });

  test('refusals: AccountDisabled, AccountDeleted, ApplicationNotActive', async () => {
    const a = await realized();
    await pair.infra.db.account.update({ where: { id: a.account.id }, data: { status: 'DISABLED' } });
    expect((await redeem(a)).body).toEqual({ reason: 'AccountDisabled' });
    const d = await realized();
    await pair.infra.db.account.update({ where: { id: d.account.id }, data: { status: 'DELETED' } });
    expect((await redeem(d)).body).toEqual({ reason: 'AccountDeleted' });
    const b = await provisionBackend(pair.infra, pair.host.url);
    const s = await realized({}, b);
    await setAppStatus(pair.infra.provisioning, b.fixture.anchor, 'SUSPENDED');
    const res = await redeem(s);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'ApplicationNotActive' });
  });

  test('the claim gate: ClaimConsentRequired carries the view and an errand on this host', async () => {
    const b = await provisionBackend(pair.infra, pair.host.url, {
      claims: { email: 'REQUIRED', firstName: 'OPTIONAL' },
    });
    const k = await realized({}, b);
    const res = await redeem(k);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('ClaimConsentRequired');
    expect(res.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'UNKNOWN' });
    expect(res.body.errand.errandKey).toMatch(/^ernd_/);
    expect(res.body.errand.url).toBe(`${pair.host.url}/errands/${res.body.errand.errandKey}`);
    expect(await stateOf(k)).toBe('REALIZED');
    // Granted afterwards (what the errand records), the client's retry of the same inquiry succeeds.
    await grantClaim(pair.infra.provisioning, k.account.id, b.fixture.anchor, 'email', 'GRANTED');
    const ok = await redeem(k);
    expect(ok.status).toBe(200);
    expect(ok.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(await stateOf(k)).toBe('REDEEMED');
  });
});

describe('POST /inquiries/{exposureKey}/status', () => {
  const poll = (exposureKey: string, hiddenKey: string) =>
    postJson(`${pair.host.url}/inquiries/${exposureKey}/status`, { hiddenKey });

  test('established, then realized with the confirmation key for STATUS_POLL, then redeemed', async () => {
    const est = await pair.backend.establish({ returnMethods: [{ type: 'STATUS_POLL' }] });
    const first = await poll(est.body.exposureKey, est.body.hiddenKey);
    expect(first.status).toBe(200);
    expect(first.body.state).toBe('established');
    expect(first.body.confirmationKey).toBeUndefined();
    const account = await readyAccount();
    const key = await realizeFor(pair.infra, est.body.exposureKey, account.id);
    const second = await poll(est.body.exposureKey, est.body.hiddenKey);
    expect(second.body).toMatchObject({ state: 'realized', confirmationKey: key });
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect((await redeem({ ...est.body, confirmationKey: second.body.confirmationKey })).status).toBe(200);
    expect((await poll(est.body.exposureKey, est.body.hiddenKey)).body.state).toBe('redeemed');
  });

  test('no confirmation key without STATUS_POLL; wrong hidden key is InquiryNotFound', async () => {
    const est = await pair.backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const account = await readyAccount();
    await realizeFor(pair.infra, est.body.exposureKey, account.id);
    const res = await poll(est.body.exposureKey, est.body.hiddenKey);
    expect(res.body.state).toBe('realized');
    expect(res.body.confirmationKey).toBeUndefined();
    const wrong = await poll(est.body.exposureKey, 'iqh_wrong');
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ reason: 'InquiryNotFound' });
  });
});
