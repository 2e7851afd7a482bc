// The sign-in attacks connect's pages are tested against (attack-fixation, attack-pages), run through the shared
// page attack kit against the device approval page: a planted or invented flow cookie is never signed in, every
// authentication (passkey or emailed code) moves the flow to a fresh identifier, and thirty wrong emailed codes
// raced on one flow over two replicas are all counted (the per-code limit of five holds exactly).
import {
  type Agent,
  expectInventedFlowRefused,
  expectPlantedFlowGainsNothing,
  makeAgent,
  provisionAccount,
  raceWrongCodes,
  type SignInPage,
  softPasskey,
  uniqueName,
} from '@svc/testkit';
import { type PageHarness, startPages } from './page-kit';
import { authorize, provisionDeviceApp } from './support';

jest.setTimeout(120_000);

const FLOW = 'device_flow';

let h: PageHarness;
let page: SignInPage;
let app: Awaited<ReturnType<typeof provisionDeviceApp>>;

beforeAll(async () => {
  // A per-address verify limit high enough that only the per-code counter stands between guesses and the code.
  // Two replicas: the guesses are spread over both, as connect's and the OIDC host's are.
  h = await startPages({}, undefined, { RL_CODE_VERIFY_PER_IP: '1000', RL_CODE_SEND_PER_IP: '1000' }, true);
  page = {
    base: h.url,
    origin: h.deps.config.pages.origin,
    rpId: h.deps.config.pages.rpId,
    path: '/device',
    flowCookie: FLOW,
  };
  app = await provisionDeviceApp(h.infra);
});
afterAll(async () => {
  await h?.close();
});

/** Both replicas' own addresses: the guesses are sent to them in turn. */
const replicas = () => [h.url, h.replicaAddress as string];

/** The agent enters a fresh user code on its flow: the page then offers sign-in. */
async function enterNewCode(agent: Agent): Promise<void> {
  const { userCode } = (await authorize(h, app.anchor)).body as { userCode: string };
  expect((await agent.form('/device', { code: userCode })).res.status).toBe(303);
}

/** A browser that opened /device and entered a code: on the sign-in step. */
async function onSignInStep(): Promise<Agent> {
  const agent = makeAgent(h.url);
  expect((await agent.request('/device')).res.status).toBe(200);
  await enterNewCode(agent);
  const step = await agent.request('/device');
  expect(step.text).toContain('Sign in with a passkey');
  return agent;
}

/** The agent asks for an emailed code for `email`; the code mailed. */
async function mailedCode(agent: Agent, email: string): Promise<string> {
  expect((await agent.form('/device/email', { email })).res.status).toBe(303);
  return h.mailbox.codeFor(email);
}

describe('fixation on the device page', () => {
  test('a flow cookie the attacker planted is not signed in when the victim signs in with a passkey', async () => {
    const account = await provisionAccount(h.infra);
    const passkey = await softPasskey(h.infra, account.id);
    // The attacker enters a code of its own device before planting: the victim's page then asks for sign-in.
    await expectPlantedFlowGainsNothing(page, passkey, 'name="code"', enterNewCode);
  });

  test('an invented cookie is never adopted: a view is issued a host-made one, a post with it is refused', async () => {
    const { userCode } = (await authorize(h, app.anchor)).body as { userCode: string };
    await expectInventedFlowRefused(page, (attacker) => attacker.form('/device', { code: userCode }));
  });

  test('proving an email address by code moves the flow to a fresh identifier; the old cookie cannot register a passkey', async () => {
    const account = await provisionAccount(h.infra);
    const agent = await onSignInStep();
    const before = agent.cookie(FLOW) as string;
    const code = await mailedCode(agent, account.email);
    expect((await agent.form('/device/email/code', { code })).res.status).toBe(303);
    expect(agent.cookie(FLOW)).not.toBe(before);
    expect((await agent.request('/device')).text).toContain('data-passkey="register"');
    const replay = makeAgent(h.url);
    replay.plant(FLOW, before);
    replay.csrf = agent.csrf;
    expect((await replay.json('/device/passkey/registration-options', {})).res.status).toBe(403);
    const view = await replay.request('/device');
    expect(view.text).not.toContain('data-passkey="register"');
    expect(view.text).not.toContain(account.email);
    expect(replay.cookie(FLOW)).not.toBe(before);
    // The victim goes on.
    expect((await agent.json('/device/passkey/registration-options', {})).res.status).toBe(200);
  });
});

describe('emailed-code guesses raced on one device flow', () => {
  /** A sign-up in progress on the device page: a code entered, a code mailed to a new address. */
  async function pendingSignUp() {
    const agent = await onSignInStep();
    const email = `${uniqueName('dv-guess')}@example.test`;
    return { agent, code: await mailedCode(agent, email) };
  }

  test('thirty parallel wrong codes, then the right one: the code is dead', async () => {
    const { agent, code } = await pendingSignUp();
    await raceWrongCodes(agent, replicas(), '/device/email/code', code);
    await agent.request('/device');
    expect((await agent.form('/device/email/code', { code })).res.status).toBe(303);
    expect((await agent.request('/device')).text).not.toContain('data-passkey="register"');
    expect((await agent.json('/device/passkey/registration-options', {})).res.status).toBe(401);
  });

  test('exactly five: four wrong guesses in parallel leave the code alive, five kill it', async () => {
    const alive = await pendingSignUp();
    await raceWrongCodes(alive.agent, replicas(), '/device/email/code', alive.code, 4);
    await alive.agent.request('/device');
    await alive.agent.form('/device/email/code', { code: alive.code });
    expect((await alive.agent.request('/device')).text).toContain('data-passkey="register"');

    const dead = await pendingSignUp();
    await raceWrongCodes(dead.agent, replicas(), '/device/email/code', dead.code, 5);
    await dead.agent.request('/device');
    await dead.agent.form('/device/email/code', { code: dead.code });
    expect((await dead.agent.request('/device')).text).not.toContain('data-passkey="register"');
  });
});
