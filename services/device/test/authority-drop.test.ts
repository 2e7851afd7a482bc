// Issue 25 on the device approval page, over HTTP with two replicas: a sign-in held on the page's flow ends when the
// passkey it used is removed (the attacker's next code shows the sign-in step, and nothing it posts approves), and
// Approve and Deny act only on the authorization the page showed, Deny only for a signed-in person.

import { deviceCodeHash } from '@svc/device-grant';
import {
  type Agent,
  makeAgent,
  type SignInPage,
  type SoftPasskey,
  signedInAgent,
  softPasskey,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { createAccountPageStore } from '../../connect/src/store/account-page';
import { deviceConfigFromEnv } from '../src/config';
import { authorize, type DeviceHarness, provisionAccount, provisionDeviceApp, startDevice } from './support';

jest.setTimeout(60_000);

let a: DeviceHarness;
let b: DeviceHarness;
let app: Awaited<ReturnType<typeof provisionDeviceApp>>;

beforeAll(async () => {
  // Counters of their own (user-code guesses per address), shared by the two replicas.
  const base = deviceConfigFromEnv(testEnv()).pages;
  const pages = { ...base, rateLimitNamespace: uniqueName('dv-authority') };
  a = await startDevice({ pages });
  b = await startDevice({ pages }, { clock: a.clock, redisPrefix: a.deps.config.redisPrefix });
  app = await provisionDeviceApp(a.infra);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const SHOWN = /name="authorization" value="([^"]+)"/;

/** A new device authorization: its user code and device code. */
async function newCode() {
  return (await authorize(a, app.anchor)).body as { userCode: string; deviceCode: string };
}

/** The stored authorization of a device code. */
const rowOf = (started: { deviceCode: string }) =>
  a.infra.db.deviceAuthorization.findFirstOrThrow({
    where: { deviceCodeHash: deviceCodeHash(started.deviceCode) },
  });
const stateOf = async (started: { deviceCode: string }) => (await rowOf(started)).state;

/** The agent enters a user code; the page it then shows. */
async function enter(agent: Agent, userCode: string) {
  expect((await agent.form('/device', { code: userCode })).res.status).toBe(303);
  return agent.request('/device');
}

/** A browser on replica A that entered a code and signed in with `passkey`: on the confirmation screen. */
async function signedInOnDevice(passkey: SoftPasskey, userCode: string) {
  const page: SignInPage = {
    base: a.url,
    origin: a.deps.config.pages.origin,
    rpId: a.deps.config.pages.rpId,
    path: '/device',
    flowCookie: 'device_flow',
  };
  const agent = makeAgent(a.url);
  await agent.request('/device');
  await enter(agent, userCode);
  await signedInAgent(page, passkey, agent);
  const confirm = await agent.request('/device');
  expect(confirm.text).toMatch(SHOWN);
  return agent;
}

/** The same browser (its cookie) talking to replica B. */
function onReplica(agent: Agent, h: DeviceHarness): Agent {
  const other = makeAgent(h.url);
  other.plant('device_flow', agent.cookie('device_flow') as string);
  other.csrf = agent.csrf;
  return other;
}

async function person() {
  const account = await provisionAccount(a.infra);
  return {
    accountId: account.id,
    own: await softPasskey(a.infra, account.id),
    planted: await softPasskey(a.infra, account.id),
  };
}

test('removing P signs out the device page it signed in: a new code asks for a sign-in, an approval does nothing', async () => {
  const v = await person();
  const first = await newCode();
  const attacker = await signedInOnDevice(v.planted, first.userCode);
  const p = await a.infra.db.passkey.findFirstOrThrow({ where: { credentialId: v.planted.credentialId } });
  expect(
    (await createAccountPageStore(a.infra.db).removePasskey(v.accountId, p.id, new Date())).outcome,
  ).toBe('removed');

  const second = await newCode();
  const there = onReplica(attacker, b);
  const shown = await enter(there, second.userCode);
  expect(shown.text).not.toMatch(SHOWN);
  expect(shown.text).toContain('passkey');
  const { id } = await rowOf(second);
  await there.form('/device/approve', { authorization: id });
  await there.form('/device/deny', { authorization: id });
  expect(await stateOf(second)).toBe('PENDING');
  expect(await stateOf(first)).toBe('PENDING');
});

test('Approve acts on the authorization the page showed, never on a code entered since in another tab', async () => {
  const v = await person();
  const first = await newCode();
  const owner = await signedInOnDevice(v.own, first.userCode);
  const shownFirst = SHOWN.exec((await owner.request('/device')).text)?.[1] as string;
  // Another tab of the same browser enters a second code: the flow's selection moves to it.
  const second = await newCode();
  const tab = onReplica(owner, b);
  expect((await enter(tab, second.userCode)).text).toMatch(SHOWN);
  // The first tab's Approve names the first authorization: nothing is decided, the page says why.
  await owner.form('/device/approve', { authorization: shownFirst });
  expect(await stateOf(first)).toBe('PENDING');
  expect(await stateOf(second)).toBe('PENDING');
  expect((await owner.request('/device')).text).toContain('Another code was entered in this browser');
  // Approving what the page now shows works.
  const shownSecond = SHOWN.exec((await owner.request('/device')).text)?.[1] as string;
  await owner.form('/device/approve', { authorization: shownSecond });
  expect(await stateOf(second)).toBe('APPROVED');
});

test('Deny needs a signed-in person on the flow that entered the code', async () => {
  const started = await newCode();
  const stranger = makeAgent(b.url);
  await stranger.request('/device');
  await enter(stranger, started.userCode);
  const { id } = await rowOf(started);
  expect((await stranger.form('/device/deny', { authorization: id })).res.status).toBe(303);
  expect(await stateOf(started)).toBe('PENDING');
});
