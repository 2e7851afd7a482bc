// The pages of a parked authorization request at /interaction/{uid}: on the first view, decide from the browser's
// sign-in on this host whether the person must authenticate (prompt=login, max_age) and answer prompt=none without
// a page; otherwise the shared sign-in steps (passkey or email-code sign-up, basic terms, consent and REQUIRED
// data), the prompt=consent review (which also asks for offline access), then the sign-in is recorded on this host and the client is answered once.
// A request that expired is answered from its return record by the page and its cancel post (expired-interaction.ts).
import { loadApplication } from '@svc/issuance';
import type { Endpoint, PageRequest } from '@svc/platform';
import {
  accountAndView,
  allClaimItems,
  appOf,
  type Browser,
  detailsView,
  html,
  PageError,
  pageQuery,
  parseCookies,
  plainForm,
  type Signin,
  sendPage,
} from '@svc/signin';
import type { Response } from 'express';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { needsFreshLogin, promptNoneError } from '../domain/authorize-decision';
import { hintedAccount } from '../domain/id-token-hint';
import { owedStep } from '../domain/owed-step';
import type { Interaction, OidcClient, SignInSession } from '../domain/ports';
import type { OidcKey } from '../pages/i18n-oidc';
import { isHttps, signInCookie } from '../pages-config';
import { issueForClient, redirectOrigin, sendErrorToClient, sendToClient, targetOf } from './answer-client';
import { authorizeClientOf } from './authorize';
import { type ExpiredPage, openExpired, returnExpired, sendExpiredPage } from './expired-interaction';

interface InteractionPage extends Browser<OidcKey> {
  uid: string;
  interaction: Interaction;
  client: OidcClient;
  /** The browser's sign-in on this host and its cookie value, when it has one. */
  held?: { id: string; session: SignInSession };
}

/** Every field of the review form is read by the details form (`submitDetails`). */
const reviewForm = z.record(z.string(), z.string());

/** GET /interaction/{uid}, its review and cancel posts and the shared sign-in steps under it. */
export function interactionEndpoints(deps: OidcDeps, signin: Signin<OidcKey>): Endpoint[] {
  const { interactions } = deps.ports;
  const cookie = signInCookie(isHttps(deps.oidc.oidcUrl));
  const nowSeconds = () => Math.floor(deps.clock() / 1000);

  async function load(req: PageRequest<unknown>, res: Response): Promise<InteractionPage> {
    const uid = String(req.params.uid);
    const interaction = await interactions.get(uid);
    if (!interaction) throw new PageError('expired');
    return openParked(req, res, uid, interaction);
  }

  /** The page and its cancel post: a request that expired may still be answered from its return record. */
  async function loadOrExpired(
    req: PageRequest<unknown>,
    res: Response,
  ): Promise<InteractionPage | ExpiredPage> {
    const uid = String(req.params.uid);
    const interaction = await interactions.get(uid);
    if (!interaction) return openExpired(deps, signin, req, res, uid);
    return openParked(req, res, uid, interaction);
  }

  async function openParked(
    req: PageRequest<unknown>,
    res: Response,
    uid: string,
    interaction: Interaction,
  ): Promise<InteractionPage> {
    const client = await deps.ports.clients.get(interaction.clientId);
    const app =
      client && authorizeClientOf(client)
        ? await loadApplication(deps.db, { id: client.applicationId })
        : undefined;
    if (!client || !app) throw new PageError('expired');
    const b = await signin.open(req, res, {
      key: `oidc:${uid}`,
      base: `/interaction/${uid}`,
      app,
      // The last step ends at the client's redirect URI (a form post's redirect chain is checked by form-action).
      formOrigins: [redirectOrigin(interaction.redirectUri)],
      emailHint: interaction.loginHint,
    });
    const id = parseCookies(req.headers.cookie)[cookie.name];
    const session = await deps.ports.signInSessions.read(id);
    return Object.assign(b, { uid, interaction, client, held: id && session ? { id, session } : undefined });
  }

  /** Takes the request (once) and answers the client, recording the sign-in on this host first. */
  async function finish(
    p: InteractionPage,
    res: Response,
    signedIn: Omit<SignInSession, 'handle'>,
  ): Promise<void> {
    const request = await interactions.take(p.uid);
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
      res.cookie(cookie.name, started.id, {
        ...cookie.options,
        maxAge: deps.ports.signInSessions.ttlSeconds * 1000,
      });
    } else if (p.held) {
      await deps.ports.signInSessions.touch(p.held.id);
    }
    // Issued under the authority recorded at sign-in: a change since is refused by the session insert itself.
    const answer = await issueForClient(deps, p.client, request, session);
    p.flow.realized = true;
    await p.save();
    if ('error' in answer) return sendErrorToClient(res, deps, targetOf(request), answer.error);
    sendToClient(res, deps, targetOf(request), answer.params);
  }

  async function fail(p: InteractionPage, res: Response, error: ReturnType<typeof promptNoneError>) {
    const request = await interactions.take(p.uid);
    if (!request || !error) throw new PageError('completed');
    p.flow.realized = true;
    await p.save();
    sendErrorToClient(res, deps, targetOf(request), error);
  }

  // A post: the page's target loaded and the flow's CSRF token and Origin checked, before the form's schema; then
  // back to the page.
  const page = signin.pages(load);
  const entry = signin.pages(loadOrExpired);

  const view = entry.view('/interaction/:uid', pageQuery, (p, _req, res) =>
    'expired' in p ? sendExpiredPage(p, res) : showParked(p, res),
  );

  async function showParked(p: InteractionPage, res: Response): Promise<void> {
    const { interaction: it, held } = p;
    if (p.flow.realized) throw new PageError('completed');
    if (it.freshLogin === undefined) {
      const prompt = new Set(it.prompt);
      it.freshLogin = needsFreshLogin({ prompt, maxAge: it.maxAge }, held?.session, nowSeconds());
      // A hint naming someone other than the browser's sign-in: that sign-in does not answer this request.
      if (!it.freshLogin && held && it.idTokenHint) {
        it.freshLogin = (await hintedAccount(deps, p.client, it.idTokenHint)) !== held.session.accountId;
      }
      await interactions.flag(p.uid, { freshLogin: it.freshLogin });
      if (prompt.has('none')) {
        const app = appOf(p.target);
        const owed = it.freshLogin || !held ? 'none' : await owedStep(deps, app, held.session.accountId);
        const error = promptNoneError(it.freshLogin, owed);
        if (error) return fail(p, res, error);
        if (held) return finish(p, res, held.session);
      }
    }
    // A sign-in this request may use is offered to the steps once; choosing another account there is final.
    if (!it.freshLogin && held && !it.heldOffered && !p.flow.accountId) {
      p.flow.accountId = held.session.accountId;
      p.flow.authTime = held.session.authTime * 1000;
      p.flow.amr = held.session.amr;
      p.flow.acr = held.session.acr;
      p.flow.authority = held.session.authority;
      await interactions.flag(p.uid, { heldOffered: true });
    }
    const signedIn = await signin.nextStep(p, res);
    if (!signedIn) return;
    if (it.prompt.includes('consent') && !it.consentReviewed) {
      const items = allClaimItems(signedIn.view, signedIn.account);
      // A refresh token needs the person's consent too (OIDC Core 11): offline access alone shows the review.
      if (items.length > 0 || it.scopes.includes('offline_access')) return sendReview(p, res, items);
    }
    await finish(p, res, {
      accountId: signedIn.account.id,
      authTime: Math.floor(signedIn.authTime.getTime() / 1000),
      amr: signedIn.amr,
      acr: signedIn.acr,
      authority: signedIn.authority,
    });
  }

  function sendReview(p: InteractionPage, res: Response, items: ReturnType<typeof allClaimItems>) {
    const { ctx, target } = p;
    const app = ctx.appName ?? '';
    const csrf = html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}">`;
    const body = html`${signinDetails(p, items)}
<form method="post" action="${`${target.base}/cancel`}">${csrf}<button type="submit" class="link">${ctx.t('cancel', { app })}</button></form>`;
    sendPage(res, p, ctx.t('reviewHeading', { app }), body);
  }

  function signinDetails(p: InteractionPage, items: ReturnType<typeof allClaimItems>) {
    const offline = p.interaction.scopes.includes('offline_access');
    return detailsView(p.ctx, {
      action: `${p.target.base}/review`,
      items,
      notice: p.takeNotice(),
      also: offline ? { key: 'offlineAccess', vars: { app: p.ctx.appName ?? '' } } : undefined,
    });
  }

  // prompt=consent: the person reviews every claim the application asks about, then the request goes on.
  const review = page.form('/interaction/:uid/review', reviewForm, async (p, req) => {
    const accountId = p.flow.accountId;
    const found = accountId ? await accountAndView(deps, appOf(p.target), accountId) : undefined;
    if (accountId && found) {
      const items = allClaimItems(found.view, found.account);
      if (await signin.submitDetails(p, req, accountId, items)) {
        await interactions.flag(p.uid, { consentReviewed: true });
      }
    }
  });

  // The person declines, or returns from an expired request: the client hears access_denied.
  const cancel = entry.form('/interaction/:uid/cancel', plainForm, (p, _req, res) =>
    'expired' in p
      ? returnExpired(deps, p, res)
      : fail(p, res, { error: 'access_denied', description: 'The person declined the request.' }),
  );

  return [
    view,
    review,
    cancel,
    ...signin.stepEndpoints(load, {
      email: '/interaction/:uid/email',
      code: '/interaction/:uid/email/code',
      reset: '/interaction/:uid/email/reset',
      signOut: '/interaction/:uid/sign-out',
      terms: '/interaction/:uid/terms',
      details: '/interaction/:uid/details',
      authenticationOptions: '/interaction/:uid/passkey/authentication-options',
      authentication: '/interaction/:uid/passkey/authentication',
      registrationOptions: '/interaction/:uid/passkey/registration-options',
      registration: '/interaction/:uid/passkey/registration',
    }),
  ];
}
