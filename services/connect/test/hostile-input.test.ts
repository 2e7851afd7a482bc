// Hostile input against the real connect host, PostgreSQL and Redis: mutation and property-based fuzzing of every
// JSON endpoint (API, passkey and account-page script endpoints), hostile page forms, and forged JWS on the
// token-bearing endpoints (/refresh, ClientAuth on /establish). No 5xx, no stack trace or internal id, and refusals
// change nothing (sessions, inquiries, errands, replay and rate-limit keys). FUZZ_SEED replays a run.
import {
  appTokenTarget,
  clientAuthTarget,
  expectStateKept,
  FUZZ_RUNS,
  forgeAll,
  fuzzBodies,
  fuzzForgeries,
  fuzzParams,
  fuzzTransport,
  type HostileContext,
  newTally,
  provisionAccount,
  provisionBackend,
  provisionClientKey,
  reportTally,
  sendProbe,
  signClientAuth,
  snapshotState,
  uniqueName,
} from '@svc/testkit';
import { AUDIENCE, TYP } from '@svc/token-core';
import fc from 'fast-check';
import { decodeJwt } from 'jose';
import { acceptCurrentTerms, realizeFor, useConnectHost } from './helpers';

jest.setTimeout(120_000);

let anchor: string;
let applicationId: string;
let accountId: string;
let client: { kid: string; key: CryptoKey };
let pending: { exposureKey: string; hiddenKey: string };
let redeemable: { exposureKey: string; hiddenKey: string; confirmationKey: string };
let tokens: { accessToken: string; refreshToken: string };
let csrf: string;
let cookie: string;
const namespace = uniqueName('connect-rl');
const cx = useConnectHost({
  config: {
    rateLimitNamespace: namespace,
    rateLimits: { codeSendPerIp: 1e6, codeSendPerRecipient: 1e6, codeVerifyPerIp: 1e6, signInPerIp: 1e6 },
  },
});
const tally = newTally();
let ctx: HostileContext;

const clientAuth = async (body: Buffer | string) => ({
  authorization: `ClientAuth ${await signClientAuth({ key: client.key, kid: client.kid, iss: anchor, aud: AUDIENCE.connect, body })}`,
});

async function establish(): Promise<{ exposureKey: string; hiddenKey: string }> {
  const body = JSON.stringify({ applicationAnchor: anchor });
  const res = await fetch(`${cx.host.url}/establish`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await clientAuth(body)) },
    body,
  });
  expect(res.status).toBe(200);
  const { exposureKey, hiddenKey } = (await res.json()) as { exposureKey: string; hiddenKey: string };
  return { exposureKey, hiddenKey };
}

beforeAll(async () => {
  const backend = await provisionBackend(cx.infra, cx.host.url);
  anchor = backend.fixture.anchor;
  applicationId = backend.fixture.applicationId;
  client = (await provisionClientKey(cx.infra, anchor)) as typeof client;
  const account = await provisionAccount(cx.infra);
  accountId = account.id;
  await acceptCurrentTerms(cx.infra, accountId);
  pending = await establish();
  const r = await establish();
  redeemable = { ...r, confirmationKey: await realizeFor(cx.infra, r.exposureKey, accountId) };
  const s = await establish();
  const confirmationKey = await realizeFor(cx.infra, s.exposureKey, accountId);
  const redeemed = await fetch(`${cx.host.url}/redeem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...s, confirmationKey }),
  });
  expect(redeemed.status).toBe(200);
  tokens = (await redeemed.json()) as typeof tokens;
  const opened = await fetch(`${cx.host.url}/inquiries/${pending.exposureKey}`);
  csrf = /name="csrf-token" content="([^"]+)"/.exec(await opened.text())?.[1] ?? '';
  cookie = opened.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  expect(csrf).not.toBe('');
  ctx = {
    tally,
    internalIds: [applicationId, accountId, decodeJwt(tokens.accessToken).sid as string],
    state: () =>
      snapshotState(cx.infra, {
        applicationId,
        accountIds: [accountId],
        redisPatterns: [`replay:client-auth:${client.kid}:*`, `rl:${namespace}*`],
      }),
  };
});
afterAll(async () => {
  reportTally('connect', tally);
});

const LIMIT = 64 * 1024;
const ceremonies = (): HostileContext => ({
  ...ctx,
  state: () =>
    snapshotState(cx.infra, {
      applicationId,
      accountIds: [accountId],
      redisPatterns: [`replay:client-auth:${client.kid}:*`],
    }),
});
const browser = () => ({ cookie, 'x-csrf-token': csrf });

describe('JSON API bodies', () => {
  it('POST /establish, unauthenticated (the JWT binds the genuine body)', async () => {
    const auth = await clientAuth(JSON.stringify({ applicationAnchor: anchor }));
    await fuzzBodies(ctx, {
      url: `${cx.host.url}/establish`,
      valid: { applicationAnchor: anchor },
      limit: 256 * 1024,
      headers: () => auth,
    });
  });
  it('POST /establish, authenticated over each hostile body (a valid variant may open an inquiry)', async () => {
    const sessionsOnly: HostileContext = {
      ...ctx,
      state: async () => {
        const snap = (await ctx.state()) as { rows: Array<Record<string, unknown>> };
        return snap.rows.map(({ inquiries: _open, ...rest }) => rest);
      },
    };
    await fuzzBodies(sessionsOnly, {
      url: `${cx.host.url}/establish`,
      valid: { applicationAnchor: anchor },
      limit: 256 * 1024,
      headers: clientAuth,
      allow2xx: true,
    });
  });
  it('POST /redeem', () =>
    fuzzBodies(ctx, { url: `${cx.host.url}/redeem`, valid: redeemable, limit: LIMIT }));
  it('POST /refresh', () =>
    fuzzBodies(ctx, {
      url: `${cx.host.url}/refresh`,
      valid: { refreshToken: tokens.refreshToken },
      limit: LIMIT,
    }));
  it('POST /info', () =>
    fuzzBodies(ctx, {
      url: `${cx.host.url}/info`,
      valid: { applicationAnchor: anchor, locale: 'en-US' },
      limit: LIMIT,
      allow2xx: true,
    }));
  it('POST /inquiries/{exposureKey}/status', () =>
    fuzzBodies(ctx, {
      url: `${cx.host.url}/inquiries/${pending.exposureKey}/status`,
      valid: { hiddenKey: pending.hiddenKey },
      limit: LIMIT,
    }));
});

describe('page script JSON endpoints (with the flow cookie and CSRF token)', () => {
  const fakeAssertion = {
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA', userHandle: 'AAAA' },
    clientExtensionResults: {},
  };
  it.each([
    ['authentication-options', {}],
    ['authentication', fakeAssertion],
  ])('POST /inquiries/{exposureKey}/passkey/%s', (step, valid) =>
    // A well-formed ceremony attempt with the flow's CSRF token counts against the sign-in limit (that is the limit's
    // purpose); everything else must stay as it was.
    fuzzBodies(ceremonies(), {
      url: `${cx.host.url}/inquiries/${pending.exposureKey}/passkey/${step}`,
      valid: valid as Record<string, unknown>,
      limit: 32 * 1024,
      headers: browser,
      allow2xx: true,
    }),
  );
  it('POST /account/passkey/authentication-options', () =>
    fuzzTransport(
      ctx,
      { url: `${cx.host.url}/account/passkey/authentication-options`, valid: {}, limit: 32 * 1024 },
      20,
    ));
});

describe('page forms', () => {
  const formValue = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
    fc.constantFrom('%00', '%FF', '%ED%A0%80', '%C0%80', '%', '%zz', '+', '%E4%BD', 'x'.repeat(20_000)),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
  const formBody = fc.oneof(
    fc
      .array(
        fc.tuple(
          fc.constantFrom(
            '_csrf',
            'email',
            'code',
            'accept',
            'revision',
            'locale',
            'consent_email',
            'value_firstName',
            '__proto__',
            'constructor',
            '',
          ),
          formValue,
        ),
        { maxLength: 60 },
      )
      .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );
  const contentType = fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=latin1',
    'application/json',
    'multipart/form-data; boundary=x',
    'text/plain',
    undefined,
  );
  const encoding = fc.constantFrom(undefined, undefined, 'gzip', 'br', 'deflate', 'identity');

  it('every form route refuses hostile forms without a 5xx, and nothing changes', async () => {
    const paths = [
      `/inquiries/${pending.exposureKey}/email`,
      `/inquiries/${pending.exposureKey}/email/code`,
      `/inquiries/${pending.exposureKey}/terms`,
      `/inquiries/${pending.exposureKey}/details`,
      `/inquiries/${pending.exposureKey}/sign-out`,
      '/account/sign-out',
      '/account/passkeys/not-a-passkey/rename',
    ];
    const before = await ctx.state();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        formBody,
        contentType,
        encoding,
        fc.boolean(),
        async (path, body, type, enc, withFlow) => {
          const headers: Record<string, string> = {};
          if (type) headers['content-type'] = type;
          if (enc) headers['content-encoding'] = enc;
          // With the flow cookie, the CSRF token is still the genuine one only when the fuzzer did not replace it.
          if (withFlow) headers.cookie = cookie;
          await sendProbe(
            tally,
            `${cx.host.url}${path}`,
            { label: `${path} ${type} ${enc} ${body.slice(0, 60)}`, headers, body },
            {
              internalIds: ctx.internalIds,
              mayCut: body.length > 16 * 1024,
              allow2xx: true,
            },
          );
        },
      ),
      fuzzParams(FUZZ_RUNS * 3),
    );
    expectStateKept(await ctx.state(), before);
  });
});

describe('forged JWS', () => {
  it('refresh tokens on /refresh', async () => {
    const forged = forgeAll(
      await appTokenTarget(cx.infra.keyRing, applicationId, tokens.refreshToken, TYP.refresh),
    );
    await fuzzForgeries(ctx, `${cx.host.url}/refresh`, forged, (jws) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: jws }),
    }));
  });

  it('ClientAuth on /establish', async () => {
    const body = JSON.stringify({ applicationAnchor: anchor });
    const genuine = await signClientAuth({
      key: client.key,
      kid: client.kid,
      iss: anchor,
      aud: AUDIENCE.connect,
      body,
    });
    const forged = forgeAll(await clientAuthTarget(cx.infra.db, client, genuine));
    await fuzzForgeries(ctx, `${cx.host.url}/establish`, forged, (jws) => ({
      headers: { 'content-type': 'application/json', authorization: `ClientAuth ${jws}` },
      body,
    }));
  });

  it('the genuine refresh token still works after everything above', async () => {
    const res = await fetch(`${cx.host.url}/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: tokens.refreshToken }),
    });
    expect(res.status).toBe(200);
  });
});
