// A validated authorization request parked for the pages at /interaction/{uid}, and what its pages decide: which
// request (or expired request's return record) a page opens, whether the browser's sign-in on this host answers it
// (prompt=login, max_age, id_token_hint, prompt=none), when the prompt=consent review is owed, and how the request
// is finished: taken once, the sign-in recorded on this host, the client answered. The sign-in steps themselves
// (libs/signin) run through `InteractionSteps`; the routes render what these functions return.
import type { ApplicationContext } from '@svc/issuance';
import {
  accountAndView,
  allClaimItems,
  type DetailItem,
  type FlowState,
  PageError,
  type SignedIn,
} from '@svc/signin';
import { type ClientAnswer, issueForClient, targetOf } from './authorize-answer';
import { authorizeClientOf } from './authorize-client';
import { needsFreshLogin, promptNoneError } from './authorize-decision';
import type { AuthorizationRequest, AuthorizeError, ResponseTarget } from './authorize-request';
import { hintedAccount } from './id-token-hint';
import { owedStep } from './owed-step';
import type { ExpiredReturn, Interaction, OidcClient, OidcDomainDeps, SignInSession } from './ports';

export function toInteraction(request: AuthorizationRequest, createdAt: number): Interaction {
  const { client, prompt, ...checked } = request;
  return { ...checked, clientId: client.clientId, prompt: [...prompt], createdAt };
}

/** What the client hears of a request that expired: the person did not complete it (no error code names expiry). */
export const EXPIRED_ERROR: AuthorizeError = {
  error: 'access_denied',
  description: 'The sign-in request expired.',
};

/** The browser's sign-in on this host and its cookie value. */
export interface HeldSignIn {
  id: string;
  session: SignInSession;
}

/** A parked request with its client and application, and the browser's sign-in when it has one. */
export interface ParkedInteraction {
  kind: 'parked';
  uid: string;
  interaction: Interaction;
  client: OidcClient;
  app: ApplicationContext;
  held?: HeldSignIn;
}

/** What is left of a request that expired, while its client can still be answered. */
export interface ExpiredInteraction {
  kind: 'expired';
  uid: string;
  expired: ExpiredReturn;
  app: ApplicationContext;
}

/** A page's request on the browser's flow (the sign-in steps' record for this request). */
type OnFlow<T> = T & { flow: FlowState; save(): Promise<void> };

/** What the sign-in steps do for these pages (libs/signin's page kit, bound to the request and its answer). */
export interface InteractionSteps {
  /** Sends the step page owed and returns undefined, or returns who passed every step. */
  next(): Promise<SignedIn | undefined>;
  /** Hands a new sign-in on this host to the browser (its cookie). */
  keepSignIn(id: string): void;
}

/** What a page view comes to: the expired page, a step page (already sent), the review, or the client's answer. */
export type InteractionView =
  | { kind: 'expired' }
  | { kind: 'steps' }
  | { kind: 'review'; items: DetailItem[] }
  | { kind: 'answer'; target: ResponseTarget; answer: ClientAnswer };

/** The client and its application while the client is active and still registers the redirect URI exactly. */
async function trustedReturn(
  deps: OidcDomainDeps,
  back: ExpiredReturn,
): Promise<ApplicationContext | undefined> {
  const client = await deps.ports.clients.get(back.clientId);
  if (!client || !authorizeClientOf(client)?.redirectUris.includes(back.redirectUri)) return undefined;
  return deps.ports.applications.loadApplication({ id: client.applicationId });
}

/**
 * Opens the request `uid` with the browser's sign-in (cookie value `signInId`). With `orExpired`, a request no
 * longer parked opens as its return record. 410 expired when there is neither, or its client cannot be answered.
 */
export async function openInteraction(
  deps: OidcDomainDeps,
  q: { uid: string; signInId: string | undefined; orExpired: boolean },
): Promise<ParkedInteraction | ExpiredInteraction> {
  const { uid } = q;
  const interaction = await deps.ports.interactions.get(uid);
  if (!interaction) {
    const expired = q.orExpired ? await deps.ports.interactions.expiredReturn(uid) : undefined;
    const app = expired && (await trustedReturn(deps, expired));
    if (!expired || !app) throw new PageError('expired');
    return { kind: 'expired', uid, expired, app };
  }
  const client = await deps.ports.clients.get(interaction.clientId);
  const app =
    client && authorizeClientOf(client)
      ? await deps.ports.applications.loadApplication({ id: client.applicationId })
      : undefined;
  if (!client || !app) throw new PageError('expired');
  const session = await deps.ports.signInSessions.read(q.signInId);
  const held = q.signInId && session ? { id: q.signInId, session } : undefined;
  return { kind: 'parked', uid, interaction, client, app, held };
}

/**
 * A page view: on the first, decide from the browser's sign-in whether the person must authenticate and answer
 * prompt=none without a page; then the sign-in steps, the prompt=consent review, and the client's answer.
 */
export async function viewInteraction(
  deps: OidcDomainDeps,
  p: OnFlow<ParkedInteraction | ExpiredInteraction>,
  steps: InteractionSteps,
): Promise<InteractionView> {
  if (p.kind === 'expired') return { kind: 'expired' };
  const { interaction: it, held } = p;
  if (p.flow.realized) throw new PageError('completed');
  if (it.freshLogin === undefined) {
    const prompt = new Set(it.prompt);
    it.freshLogin = needsFreshLogin(
      { prompt, maxAge: it.maxAge },
      held?.session,
      Math.floor(deps.clock() / 1000),
    );
    // A hint naming someone other than the browser's sign-in: that sign-in does not answer this request.
    if (!it.freshLogin && held && it.idTokenHint) {
      it.freshLogin = (await hintedAccount(deps, p.client, it.idTokenHint)) !== held.session.accountId;
    }
    await deps.ports.interactions.flag(p.uid, { freshLogin: it.freshLogin });
    if (prompt.has('none')) {
      const owed = it.freshLogin || !held ? 'none' : await owedStep(deps, p.app, held.session.accountId);
      const error = promptNoneError(it.freshLogin, owed);
      if (error) return fail(deps, p, error);
      if (held) return finish(deps, p, steps, held.session);
    }
  }
  // A sign-in this request may use is offered to the steps once; choosing another account there is final.
  if (!it.freshLogin && held && !it.heldOffered && !p.flow.accountId) {
    p.flow.accountId = held.session.accountId;
    p.flow.authTime = held.session.authTime * 1000;
    p.flow.amr = held.session.amr;
    p.flow.acr = held.session.acr;
    p.flow.authority = held.session.authority;
    await deps.ports.interactions.flag(p.uid, { heldOffered: true });
  }
  const signedIn = await steps.next();
  if (!signedIn) return { kind: 'steps' };
  if (it.prompt.includes('consent') && !it.consentReviewed) {
    const items = allClaimItems(signedIn.view, signedIn.account);
    // A refresh token needs the person's consent too (OIDC Core 11): offline access alone shows the review.
    if (items.length > 0 || it.scopes.includes('offline_access')) return { kind: 'review', items };
  }
  return finish(deps, p, steps, {
    accountId: signedIn.account.id,
    authTime: Math.floor(signedIn.authTime.getTime() / 1000),
    amr: signedIn.amr,
    acr: signedIn.acr,
    authority: signedIn.authority,
  });
}

/**
 * prompt=consent: the person's review of every claim the application asks about (`submit` saves the form; true
 * when the claim gate passes), after which the request goes on.
 */
export async function reviewInteraction(
  deps: OidcDomainDeps,
  p: OnFlow<ParkedInteraction>,
  submit: (accountId: string, items: DetailItem[]) => Promise<boolean>,
): Promise<void> {
  const accountId = p.flow.accountId;
  const found = accountId ? await accountAndView(deps.ports, p.app, accountId) : undefined;
  if (accountId && found) {
    const items = allClaimItems(found.view, found.account);
    if (await submit(accountId, items)) await deps.ports.interactions.flag(p.uid, { consentReviewed: true });
  }
}

/**
 * The person declines (the client hears access_denied), or returns from an expired request: its return record is
 * taken once (a second post gets the expired page) and its client checked again before it is answered.
 */
export async function cancelInteraction(
  deps: OidcDomainDeps,
  p: OnFlow<ParkedInteraction | ExpiredInteraction>,
): Promise<{ target: ResponseTarget; answer: ClientAnswer }> {
  if (p.kind === 'parked') {
    return fail(deps, p, { error: 'access_denied', description: 'The person declined the request.' });
  }
  const back = await deps.ports.interactions.takeExpiredReturn(p.uid);
  if (!back || !(await trustedReturn(deps, back))) throw new PageError('expired');
  return { target: targetOf(back), answer: { error: EXPIRED_ERROR } };
}

/** Takes the request (once) and answers the client, recording the sign-in on this host first. */
async function finish(
  deps: OidcDomainDeps,
  p: OnFlow<ParkedInteraction>,
  steps: InteractionSteps,
  signedIn: Omit<SignInSession, 'handle'>,
): Promise<{ kind: 'answer'; target: ResponseTarget; answer: ClientAnswer }> {
  const request = await deps.ports.interactions.take(p.uid);
  if (!request) throw new PageError('completed');
  let session = p.held?.session;
  if (!session || session.accountId !== signedIn.accountId || session.authTime !== signedIn.authTime) {
    const started = await deps.ports.signInSessions.start(p.held?.id, {
      accountId: signedIn.accountId,
      authTime: signedIn.authTime,
      // How the person authenticated in this flow (libs/signin auth-references: passkey or email code).
      amr: [...signedIn.amr],
      ...(signedIn.acr ? { acr: signedIn.acr } : {}),
      authority: signedIn.authority,
    });
    session = started.session;
    steps.keepSignIn(started.id);
  } else if (p.held) {
    await deps.ports.signInSessions.touch(p.held.id);
  }
  // Issued under the authority recorded at sign-in: a change since is refused by the session insert itself.
  const answer = await issueForClient(deps, p.client, request, session);
  p.flow.realized = true;
  await p.save();
  return { kind: 'answer', target: targetOf(request), answer };
}

async function fail(
  deps: OidcDomainDeps,
  p: OnFlow<ParkedInteraction>,
  error: AuthorizeError | undefined,
): Promise<{ kind: 'answer'; target: ResponseTarget; answer: ClientAnswer }> {
  const request = await deps.ports.interactions.take(p.uid);
  if (!request || !error) throw new PageError('completed');
  p.flow.realized = true;
  await p.save();
  return { kind: 'answer', target: targetOf(request), answer: { error } };
}
