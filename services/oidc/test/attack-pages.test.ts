// The sign-in attacks connect's pages are tested against (attack-fixation, attack-pages), run through the shared
// page attack kit against the OIDC interaction page over two replicas of one issuer: a planted or invented flow
// cookie is never signed in, proving an email address moves the flow to a fresh identifier, and thirty wrong
// emailed codes raced on one flow across both replicas are all counted (the per-code limit of five holds exactly).
import {
  type Agent,
  expectInventedFlowRefused,
  expectPlantedFlowGainsNothing,
  type Mailbox,
  makeAgent,
  provisionAccount,
  raceWrongCodes,
  type SignInPage,
  softPasskey,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import { authorizeRequestUrl, provisionRelyingParty, startOidcPages } from './pages-kit';

jest.setTimeout(120_000);

const FLOW = 'oidc_flow';
let mailbox: Mailbox;
type Host = Awaited<ReturnType<typeof startOidcPages>>;
let a: Host;
let b: Host;
let rp: Awaited<ReturnType<typeof provisionRelyingParty>>;

beforeAll(async () => {
  mailbox = await startMailbox();
  // Shared counters; a per-address verify limit high enough that only the per-code counter limits guesses.
  const env = {
    RATE_LIMIT_NAMESPACE: uniqueName('oidc-attack'),
    RL_CODE_VERIFY_PER_IP: '1000',
    RL_CODE_SEND_PER_IP: '1000',
  };
  a = await startOidcPages({ smtpPort: mailbox.port, env });
  b = await startOidcPages({ smtpPort: mailbox.port, env, issuer: a.url });
  rp = await provisionRelyingParty(a, { redirectUris: [`https://${uniqueName('rp')}.example/cb`] });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await mailbox?.close();
});

/** A new authorization request parked by replica A: its interaction page as the kit drives it. */
async function interactionPage(): Promise<SignInPage> {
  const parked = await fetch(authorizeRequestUrl(a.address, rp, { state: uniqueName('s') }), {
    redirect: 'manual',
  });
  expect(parked.status).toBe(303);
  const path = parked.headers.get('location') ?? '';
  expect(path).toMatch(/^\/interaction\//);
  return { base: a.address, origin: a.url, rpId: 'localhost', path, flowCookie: FLOW };
}

/** A browser on the interaction page's sign-in step. */
async function onSignInStep(page: SignInPage): Promise<Agent> {
  const agent = makeAgent(page.base);
  expect((await agent.request(page.path)).text).toContain('Sign in with a passkey');
  return agent;
}

/** The agent asks for an emailed code for `email`; the code mailed. */
async function mailedCode(agent: Agent, path: string, email: string): Promise<string> {
  expect((await agent.form(`${path}/email`, { email })).res.status).toBe(303);
  return mailbox.codeFor(email);
}

describe('fixation on the OIDC interaction page', () => {
  test('a flow cookie the attacker planted is not signed in when the victim signs in with a passkey', async () => {
    const account = await provisionAccount(a.infra);
    const passkey = await softPasskey(a.infra, account.id);
    await expectPlantedFlowGainsNothing(await interactionPage(), passkey, 'Sign in with a passkey');
  });

  test('an invented cookie is never adopted: a view is issued a host-made one, a post with it is refused', async () => {
    const page = await interactionPage();
    const email = `${uniqueName('invented')}@example.test`;
    await expectInventedFlowRefused(page, (attacker) => attacker.form(`${page.path}/email`, { email }));
    expect(mailbox.messages.some((m) => m.to === email)).toBe(false);
  });

  test('proving an email address by code moves the flow to a fresh identifier; the old cookie cannot register a passkey', async () => {
    const page = await interactionPage();
    const { path } = page;
    const agent = await onSignInStep(page);
    const before = agent.cookie(FLOW) as string;
    const email = `${uniqueName('fixed')}@example.test`;
    const code = await mailedCode(agent, path, email);
    expect((await agent.form(`${path}/email/code`, { code })).res.status).toBe(303);
    expect(agent.cookie(FLOW)).not.toBe(before);
    expect((await agent.request(path)).text).toContain('data-passkey="register"');
    const replay = makeAgent(a.address);
    replay.plant(FLOW, before);
    replay.csrf = agent.csrf;
    expect((await replay.json(`${path}/passkey/registration-options`, {})).res.status).toBe(403);
    const view = await replay.request(path);
    expect(view.text).not.toContain('data-passkey="register"');
    expect(view.text).not.toContain(email);
    expect(replay.cookie(FLOW)).not.toBe(before);
    // The victim goes on.
    expect((await agent.json(`${path}/passkey/registration-options`, {})).res.status).toBe(200);
  });
});

describe('emailed-code guesses raced on one OIDC flow across two replicas', () => {
  /** A sign-up in progress on an interaction page: a code mailed to a new address. */
  async function pendingSignUp() {
    const page = await interactionPage();
    const { path } = page;
    const agent = await onSignInStep(page);
    const email = `${uniqueName('oidc-guess')}@example.test`;
    return { agent, path, code: await mailedCode(agent, path, email) };
  }

  test('thirty parallel wrong codes, then the right one: the code is dead', async () => {
    const { agent, path, code } = await pendingSignUp();
    await raceWrongCodes(agent, [a.address, b.address], `${path}/email/code`, code);
    await agent.request(path);
    expect((await agent.form(`${path}/email/code`, { code })).res.status).toBe(303);
    expect((await agent.request(path)).text).not.toContain('data-passkey="register"');
    expect((await agent.json(`${path}/passkey/registration-options`, {})).res.status).toBe(401);
  });

  test('exactly five: four wrong guesses in parallel leave the code alive, five kill it', async () => {
    const alive = await pendingSignUp();
    await raceWrongCodes(alive.agent, [a.address, b.address], `${alive.path}/email/code`, alive.code, 4);
    await alive.agent.request(alive.path);
    await alive.agent.form(`${alive.path}/email/code`, { code: alive.code });
    expect((await alive.agent.request(alive.path)).text).toContain('data-passkey="register"');

    const dead = await pendingSignUp();
    await raceWrongCodes(dead.agent, [a.address, b.address], `${dead.path}/email/code`, dead.code, 5);
    await dead.agent.request(dead.path);
    await dead.agent.form(`${dead.path}/email/code`, { code: dead.code });
    expect((await dead.agent.request(dead.path)).text).not.toContain('data-passkey="register"');
  });
});
