// The shared attack kit of the sign-in pages (connect, device, OIDC): what an attacker does to any of them over
// HTTP, written once and pointed at a host by a small description of its page (where it lives, its flow cookie,
// the relying party). `softPasskey` (soft-passkey.ts) is the attacker's or the victim's authenticator.
import { randomInt } from 'node:crypto';
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
  /** What the attacker does before planting so the page offers sign-in (the device page: enter a user code). */
  prepare: (attacker: Agent) => Promise<void> = async () => {},
): Promise<void> {
  const attacker = makeAgent(page.base);
  expect((await attacker.request(page.path)).res.status).toBe(200);
  await prepare(attacker);
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

/** An invented flow cookie of the host's shape (43 base64url characters): never one the host issued. */
export function inventedFlowCookie(): string {
  const invented = Buffer.alloc(32, randomInt(256)).toString('base64url');
  expect(invented).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return invented;
}

/**
 * An invented flow cookie is never adopted: a view with it is issued a host-made one, and `forge` (a post an
 * attacker sends with the invented cookie and the victim page's CSRF token) is refused with 403 and issued no flow.
 * The attacker's next view is issued a host-made cookie too.
 */
export async function expectInventedFlowRefused(
  page: Pick<SignInPage, 'base' | 'path' | 'flowCookie'>,
  forge: (attacker: Agent) => Promise<{ res: Response }>,
): Promise<void> {
  const invented = inventedFlowCookie();
  const victim = makeAgent(page.base);
  victim.plant(page.flowCookie, invented);
  await victim.request(page.path);
  expect(victim.cookie(page.flowCookie)).not.toBe(invented);
  const attacker = makeAgent(page.base);
  attacker.plant(page.flowCookie, invented);
  attacker.csrf = victim.csrf;
  const { res } = await forge(attacker);
  expect(res.status).toBe(403);
  expect(res.headers.getSetCookie().some((c) => c.startsWith(`${page.flowCookie}=`))).toBe(false);
  await attacker.request(page.path);
  expect(attacker.cookie(page.flowCookie)).not.toBe(invented);
}

/** Six-digit codes other than `right`, all different. */
export function wrongCodes(right: string, n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    const c = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (c !== right) out.add(c);
  }
  return [...out];
}

/**
 * `n` different wrong codes posted at once on one flow (the agent's cookie), spread over `bases` (replicas'
 * addresses) in turn; each is answered as a wrong code is (303 back to the page). The per-code counter must count
 * every one of them: the caller then shows the right code is dead.
 */
export async function raceWrongCodes(
  agent: Agent,
  bases: string[],
  codePath: string,
  right: string,
  n = 30,
): Promise<void> {
  const answers = await Promise.all(
    wrongCodes(right, n).map((wrong, i) =>
      agent.form(`${bases[i % bases.length]}${codePath}`, { code: wrong }),
    ),
  );
  expect(answers.map((r) => r.res.status)).toEqual(Array(n).fill(303));
}
