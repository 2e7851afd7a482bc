// The shared attack kit of the sign-in pages (connect, device, OIDC): what an attacker does to any of them over
// HTTP, written once and pointed at a host by a small description of its page (where it lives, its flow cookie,
// the relying party). `softPasskey` (soft-passkey.ts) is the attacker's or the victim's authenticator.
import { type Agent, makeAgent } from './page-agent';
import type { SoftPasskey } from './soft-passkey';

/** A host's sign-in page as the kit drives it. */
export interface SignInPage {
  /** Where the agent's requests go (a replica's own address). */
  base: string;
  /** The WebAuthn origin the host expects (its public URL; replicas of one host share it). */
  origin: string;
  /** WEBAUTHN_RP_ID. */
  rpId: string;
  /** The page path the step routes live under, e.g. `/device` or `/interaction/<uid>`. */
  path: string;
  /** The flow cookie's name on this host (`connect_flow`, `device_flow`, `oidc_flow` on loopback HTTP). */
  flowCookie: string;
}

/** Usernameless sign-in as the page script does it: options, then the assertion; the call's answer. */
export async function passkeySignIn(agent: Agent, page: SignInPage, passkey: SoftPasskey) {
  const options = await agent.json(`${page.path}/passkey/authentication-options`, {});
  expect(options.res.status).toBe(200);
  const { challenge } = JSON.parse(options.text) as { challenge: string };
  const assertion = passkey.assert({ challenge, origin: page.origin, rpId: page.rpId });
  return agent.json(`${page.path}/passkey/authentication`, assertion);
}

/** A browser (the kit's agent) that opened the page and signed in with `passkey`; its flow cookie rotated. */
export async function signedInAgent(page: SignInPage, passkey: SoftPasskey, agent = makeAgent(page.base)) {
  const opened = await agent.request(page.path);
  expect(opened.res.status).toBe(200);
  const before = agent.cookie(page.flowCookie);
  const signedIn = await passkeySignIn(agent, page, passkey);
  expect(signedIn.res.status).toBe(200);
  expect(agent.cookie(page.flowCookie)).not.toBe(before);
  return agent;
}

/**
 * Fixation: the attacker opens the page and plants the flow cookie the host issued to it in the victim's browser;
 * the victim signs in with a passkey. The planted copy must not be signed in: the attacker's next view shows the
 * sign-in step again (`signInMarker` is text only that step shows) and its copy of the cookie is replaced.
 */
export async function expectPlantedFlowGainsNothing(
  page: SignInPage,
  victimPasskey: SoftPasskey,
  signInMarker: string,
): Promise<void> {
  const attacker = makeAgent(page.base);
  expect((await attacker.request(page.path)).res.status).toBe(200);
  const kept = attacker.cookie(page.flowCookie);
  expect(kept).toBeDefined();
  const victim = makeAgent(page.base);
  victim.plant(page.flowCookie, kept as string);
  expect((await victim.request(page.path)).res.status).toBe(200);
  expect(victim.cookie(page.flowCookie)).toBe(kept);
  expect((await passkeySignIn(victim, page, victimPasskey)).res.status).toBe(200);
  expect(victim.cookie(page.flowCookie)).not.toBe(kept);
  const replay = await attacker.request(page.path);
  expect(replay.text).toContain(signInMarker);
  expect(attacker.cookie(page.flowCookie)).not.toBe(kept);
}
