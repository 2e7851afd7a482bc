// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0; CONTRACTS "OIDC host"): an id_token_hint the host
// signed names the client and its sign-in session (the ID token's `sid`); ending a sign-in session revokes the
// sessions it issued to every client, as session /logout revokes one, each client with a back-channel logout URI
// getting its logout token (Back-Channel Logout 1.0 section 2.7; CONTRACTS "Events to applications"). The person's
// sign-in on the OIDC host ends, and the browser goes to a post_logout_redirect_uri registered for that client,
// with `state`. Without a hint nothing is revoked before the person confirms on a page.
import { timingSafeEqual } from 'node:crypto';
import { revokeFamily } from '@svc/issuance';
import { OIDC_SCOPE } from '@svc/keyring';
import { compactVerify, type JWSHeaderParameters } from 'jose';
import { browserSignInSid } from './id-token';
import type { OidcClient, OidcDomainDeps, SignInSession } from './ports';

export class EndSessionRefused extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'EndSessionRefused';
  }
}

export interface EndSessionRequest {
  idTokenHint?: string;
  postLogoutRedirectUri?: string;
  state?: string;
  clientId?: string;
}

export interface HintClaims {
  sub: string;
  aud: string;
  /** Seconds since the epoch: the sign-in the ID token states. */
  authTime?: number;
  /** The sign-in session the ID token names (absent from ID tokens issued before they carried one). */
  sid?: string;
}

/**
 * Verifies an id_token_hint: signed by a published platform OIDC key (active or retiring), `iss` this host, one
 * `aud`. Its expiry is not checked: an RP may send the last ID token it holds, long after it expired.
 */
export async function verifyIdTokenHint(deps: OidcDomainDeps, hint: string): Promise<HintClaims> {
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(hint, async (header: JWSHeaderParameters) => {
      if (header.alg !== 'RS256' || typeof header.kid !== 'string') throw new Error('unexpected header');
      const key = await deps.keyRing.verificationKey(OIDC_SCOPE, header.kid);
      if (!key) throw new Error('unknown key');
      return key;
    });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    throw new EndSessionRefused('id_token_hint is not an ID token this provider issued');
  }
  const { iss, aud, sub, auth_time, sid } = payload;
  if (iss !== deps.oidc.oidcUrl || typeof aud !== 'string' || typeof sub !== 'string') {
    throw new EndSessionRefused('id_token_hint is not an ID token this provider issued');
  }
  return {
    sub,
    aud,
    authTime: Number.isSafeInteger(auth_time) ? (auth_time as number) : undefined,
    ...(typeof sid === 'string' && sid ? { sid } : {}),
  };
}

/** Where to send the browser after logout, or undefined for the host's own signed-out page. */
function redirectTarget(client: OidcClient | undefined, uri: string | undefined, state: string | undefined) {
  if (uri === undefined) return undefined;
  if (!client?.postLogoutRedirectUris.includes(uri)) {
    throw new EndSessionRefused('post_logout_redirect_uri is not registered for this client');
  }
  if (state === undefined) return uri;
  const url = new URL(uri);
  url.searchParams.set('state', state);
  return url.toString();
}

export interface EndSessionPlan {
  /** Whether the request names its client through a verified hint (then no confirmation is asked). */
  hinted: boolean;
  hint?: HintClaims;
  client?: OidcClient;
  /** The post-logout redirect with `state`, checked against the client's registered URIs. */
  redirectTo?: string;
}

/** Checks the request before anything changes: the hint, the client, and the post-logout redirect. */
async function planEndSession(deps: OidcDomainDeps, req: EndSessionRequest): Promise<EndSessionPlan> {
  const hint = req.idTokenHint ? await verifyIdTokenHint(deps, req.idTokenHint) : undefined;
  if (hint && req.clientId !== undefined && req.clientId !== hint.aud) {
    throw new EndSessionRefused('client_id differs from the audience of id_token_hint');
  }
  const clientId = hint?.aud ?? req.clientId;
  const client = clientId ? await deps.ports.clients.get(clientId) : undefined;
  if (clientId && !client) throw new EndSessionRefused('unknown client');
  return {
    hinted: !!hint,
    hint,
    client,
    redirectTo: redirectTarget(client, req.postLogoutRedirectUri, req.state),
  };
}

/**
 * Ends sign-in sessions by their ID tokens' `sid`: the live sessions each issued, to every client, revoked in one
 * statement (their events, logout tokens included, share one txn), then announced to every replica.
 */
async function endSignIns(deps: OidcDomainDeps, sids: string[]): Promise<void> {
  if (sids.length === 0) return;
  const revoked = await deps.ports.sessions.revokeSignIns(
    [...new Set(sids)],
    'logout',
    new Date(deps.clock()),
  );
  if (revoked.length > 0) await deps.ports.sessionEvents.publishSessionChanges(revoked);
}

/**
 * The hint's own client's sessions, for a hint issued before ID tokens carried `sid`: those of its subject from the
 * sign-in its auth_time states (every code and refresh of that sign-in shares it). Idempotent.
 */
async function revokeHintedSessionsWithoutSid(deps: OidcDomainDeps, plan: EndSessionPlan): Promise<void> {
  const hint = plan.hint;
  if (!hint || hint.authTime === undefined || !plan.client) return;
  const sids = await deps.ports.oidcSessions.liveOfSignIn({
    oidcClientId: plan.client.id,
    applicationId: plan.client.applicationId,
    subject: hint.sub,
    authTime: hint.authTime,
  });
  for (const sid of sids) await revokeFamily(deps, sid, 'logout');
}

/** Whether the plan's verified hint names `accountId` (its subject, under its client's application). */
async function hintNamesAccount(
  deps: OidcDomainDeps,
  plan: EndSessionPlan,
  accountId: string,
): Promise<boolean> {
  if (!plan.hint || !plan.client) return false;
  return (
    (await deps.ports.sectorSubjects.accountBehindSubject(plan.client.applicationId, plan.hint.sub, {
      current: true,
    })) === accountId
  );
}

/** A logout request as the endpoint reads it: its parameters, the browser's sign-in and the confirmation's CSRF. */
export interface EndSessionCall extends EndSessionRequest {
  /** The browser's sign-in on this host (cookie oidc_session), when it sent one. */
  signInId?: string;
  /** A POST with confirm=yes: the person confirmed on the page. */
  confirmPost: boolean;
  /** The confirmation's CSRF value as the cookie holds it and as the form posted it. */
  csrf: { cookie?: string; form?: string };
}

export type EndSessionOutcome =
  /** Done: the browser's sign-in ended (its cookie to clear) or kept, then the redirect or the signed-out page. */
  | { kind: 'ended'; plan: EndSessionPlan; signInEnded: boolean; confirmed: boolean }
  /** Without a hint and unconfirmed: the confirmation page. */
  | { kind: 'confirm'; plan: EndSessionPlan };

function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * One logout request. With a verified hint: the sign-in session it names ends for every client (its sessions
 * revoked, each back-channel client told), and the browser's sign-in ends too only when the hint names the person
 * signed in there (RP-Initiated Logout 1.0 section 2: a hint that does not belong to the current End-User must not
 * log them out unasked; otherwise any site could sign a victim out with its own, genuine ID token). Without one,
 * only a confirmed POST (CSRF double-submit) ends the browser's sign-in, and with it its sessions at every client.
 * Throws EndSessionRefused.
 */
export async function endSession(deps: OidcDomainDeps, call: EndSessionCall): Promise<EndSessionOutcome> {
  const plan = await planEndSession(deps, call);
  const held = () => deps.ports.signInSessions.read(call.signInId);
  /** Ends the browser's sign-in (`signIn`, when it holds one) and, with `also`, every session either issued. */
  const endWithBrowserSignIn = async (signIn: SignInSession | undefined, also: string[]) => {
    await endSignIns(deps, signIn ? [...also, browserSignInSid(signIn.handle)] : also);
    if (call.signInId) await deps.ports.signInSessions.end(call.signInId);
  };
  if (plan.hinted) {
    const hinted = plan.hint?.sid ? [plan.hint.sid] : [];
    if (hinted.length === 0) await revokeHintedSessionsWithoutSid(deps, plan);
    const signIn = await held();
    if (signIn && !(await hintNamesAccount(deps, plan, signIn.accountId))) {
      await endSignIns(deps, hinted);
      return { kind: 'ended', plan, signInEnded: false, confirmed: false };
    }
    await endWithBrowserSignIn(signIn, hinted);
    return { kind: 'ended', plan, signInEnded: true, confirmed: false };
  }
  if (call.confirmPost && sameSecret(call.csrf.cookie, call.csrf.form)) {
    await endWithBrowserSignIn(await held(), []);
    return { kind: 'ended', plan, signInEnded: true, confirmed: true };
  }
  return { kind: 'confirm', plan };
}
