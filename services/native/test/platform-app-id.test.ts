// platformAppId is an int64 on the wire: the full range 1..2^63-1, as an integer or a decimal string, kept exact
// from the request through the allow-list (provisioned with `pnpm admin app add-rule`) to the Steam call.
import { postJson, provisionAccount, provisionApp } from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import { linkedTicket, useNativeHost } from './helpers';

const TWO_53 = '9007199254740992';
const TWO_53_PLUS_1 = '9007199254740993'; // JSON.parse rounds it to 2^53
const INT64_MAX = '9223372036854775807';

const n = useNativeHost();
let anchor: string;
let accountId: string;

/** `pnpm admin app add-rule` of PLATFORM_TICKET for the application, allow-listing `ids`. */
function addTicketRule(...ids: string[]) {
  const idFlags = ids.flatMap((id) => ['--platform-app-id', id]);
  return admin(['app', 'add-rule', '--app', anchor, '--method', 'PLATFORM_TICKET', ...idFlags]);
}

beforeAll(async () => {
  anchor = (await provisionApp(n.infra)).anchor;
  // 2^53 + 1 and 2^63 - 1 are allow-listed; 2^53 is not.
  const rule = await addTicketRule(TWO_53_PLUS_1, INT64_MAX);
  expect(rule.code).toBe(0);
  accountId = (await provisionAccount(n.infra)).id;
}, 60_000);

/** Signs in with `appIdJson` written verbatim into the body (an integer literal or a quoted string). */
async function signIn(appIdJson: string) {
  const ticket = await linkedTicket(n, accountId);
  const body = `{"applicationAnchor":"${anchor}","platformTicketHex":"${ticket}","platformAppId":${appIdJson}}`;
  const res = await postJson(`${n.host.url}/direct-issue/platform-ticket`, body);
  const call = n.steam.calls.find((c) => c.query.ticket === ticket);
  return { res, steamAppId: call?.query.appid };
}

describe('platformAppId across the int64 range', () => {
  test.each([
    ['an integer 2^53 + 1', TWO_53_PLUS_1, TWO_53_PLUS_1],
    ['a decimal string 2^53 + 1', `"${TWO_53_PLUS_1}"`, TWO_53_PLUS_1],
    ['an integer 2^63 - 1', INT64_MAX, INT64_MAX],
    ['a decimal string 2^63 - 1', `"${INT64_MAX}"`, INT64_MAX],
  ])('%s is accepted exactly and sent to Steam as such', async (_, appIdJson, exact) => {
    const { res, steamAppId } = await signIn(appIdJson);
    expect(res.status).toBe(200);
    expect(steamAppId).toBe(exact);
  });

  test('2^53 is its own id: not allow-listed here, although JSON.parse gives 2^53 + 1 the same number', async () => {
    for (const appIdJson of [TWO_53, `"${TWO_53}"`]) {
      const { res, steamAppId } = await signIn(appIdJson);
      expect([res.status, res.body]).toEqual([403, { reason: 'Layer1Denied' }]);
      expect(steamAppId).toBeUndefined();
    }
  });

  test.each([
    '9223372036854775808',
    '"9223372036854775808"',
    '18446744073709551616',
    '1e19',
    '0',
    '"0"',
    '-1',
    '"-1"',
    `"0${INT64_MAX.slice(1)}"`,
    '"1.5"',
    '1.5',
    'null',
  ])('%s is out of range or malformed: InvalidBody, and Steam is never asked', async (appIdJson) => {
    const { res, steamAppId } = await signIn(appIdJson);
    expect([res.status, res.body]).toEqual([400, { reason: 'InvalidBody' }]);
    expect(steamAppId).toBeUndefined();
  });

  test('the admin refuses an id past 2^63 - 1 with the same rule (exit 2)', async () => {
    const run = await addTicketRule('9223372036854775808');
    expect(run.code).toBe(2);
    expect(run.json.error).toMatch(/^--platform-app-id must be an integer from 1 to 9223372036854775807/);
  }, 60_000);
});
