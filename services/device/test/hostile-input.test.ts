// Hostile input against the real device host, PostgreSQL and Redis: mutation and property-based fuzzing of both
// JSON endpoints. No 5xx, no stack trace or internal id in any answer, and refusals change nothing (authorizations, sessions, the approved authorization stays redeemable).
// FUZZ_SEED replays a run.
import {
  expectStateKept,
  fuzzBodies,
  type HostileContext,
  newTally,
  provisionAccount,
  reportTally,
  snapshotState,
} from '@svc/testkit';
import { approve, authorize, type DeviceHarness, poll, provisionDeviceApp, startDevice } from './support';

jest.setTimeout(120_000);

let h: DeviceHarness;
let ctx: HostileContext;
let app: Awaited<ReturnType<typeof provisionDeviceApp>>;
let approved: { deviceCode: string; userCode: string };
let accountId: string;
const tally = newTally();

beforeAll(async () => {
  h = await startDevice({ rateLimit: { authorizePerAddress: 100_000 } });
  app = await provisionDeviceApp(h.infra);
  const res = await authorize(h, app.anchor);
  approved = res.body;
  accountId = (await provisionAccount(h.infra)).id;
  await approve(h, approved.userCode, accountId);
  ctx = {
    tally,
    internalIds: [app.applicationId, accountId],
    state: () =>
      snapshotState(h.infra, {
        applicationId: app.applicationId,
        accountIds: [accountId],
        redisPatterns: [],
      }),
  };
});
afterAll(async () => {
  reportTally('device', tally);
  await h.close();
});

describe('GET /device query', () => {
  it('fills in a user_code; a repeated, over-long or mistyped user_code is the error page, a bad lang ignored', async () => {
    const ok = await fetch(`${h.url}/device?user_code=${approved.userCode}`);
    expect([ok.status, await ok.text()]).toEqual([
      200,
      expect.stringContaining(`value="${approved.userCode}"`),
    ]);
    const before = await ctx.state();
    for (const query of [
      `user_code=${approved.userCode}&user_code=${approved.userCode}`,
      `user_code=${'A'.repeat(65)}`,
      'user_code=%3Cb%3E',
      'user_code=AB%00C',
    ]) {
      const res = await fetch(`${h.url}/device?${query}`);
      expect([query, res.status, res.headers.get('content-type')]).toEqual([
        query,
        400,
        expect.stringMatching(/^text\/html/),
      ]);
    }
    // A lang naming no locale we have is ignored: the page opens in the browser's language.
    for (const query of ['lang=fr', 'lang=zh-CN&lang=en-US', `lang=${'x'.repeat(100)}`]) {
      const res = await fetch(`${h.url}/device?${query}`);
      expect([query, res.status, await res.text()]).toEqual([
        query,
        200,
        expect.stringContaining('<html lang="en-US">'),
      ]);
    }
    expectStateKept(await ctx.state(), before);
  });
});

describe('JSON bodies', () => {
  it('POST /device-authorize', () =>
    fuzzBodies(ctx, {
      url: `${h.url}/device-authorize`,
      valid: { applicationAnchor: app.anchor },
      limit: 4096,
    }));

  it('POST /device-token (an approved code: no mutation redeems it)', async () => {
    await fuzzBodies(ctx, {
      url: `${h.url}/device-token`,
      valid: { deviceCode: approved.deviceCode },
      limit: 4096,
    });
    // Still redeemable by the genuine body, once.
    h.clock.advance(60_000);
    expect((await poll(h, approved.deviceCode)).status).toBe(200);
  });
});
