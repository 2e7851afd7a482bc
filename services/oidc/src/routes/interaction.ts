// The pages of a parked authorization request at /interaction/{uid}: the page, its prompt=consent review and cancel
// posts, and the shared sign-in steps under it. Each handler opens the request (domain/interaction.ts
// openInteraction) on the browser's flow, calls one domain function and renders what it returns: a step page, the
// review (which also asks for offline access), the expired page (expired-interaction.ts), or the client's answer.
import type { Endpoint, PageRequest } from '@svc/platform';
import {
  type Browser,
  type DetailItem,
  detailsView,
  html,
  pageQuery,
  parseCookies,
  plainForm,
  type Signin,
  sendPage,
} from '@svc/signin';
import type { Response } from 'express';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import {
  cancelInteraction,
  openInteraction,
  type ParkedInteraction,
  reviewInteraction,
  viewInteraction,
} from '../domain/interaction';
import type { OidcKey } from '../pages/i18n-oidc';
import { isHttps, signInCookie } from '../pages-config';
import { redirectOrigin, sendAnswer } from './answer-client';
import { type ExpiredPage, sendExpiredPage } from './expired-interaction';

type InteractionPage = Browser<OidcKey> & ParkedInteraction;

/** Every field of the review form is read by the details form (`submitDetails`). */
const reviewForm = z.record(z.string(), z.string());

/** GET /interaction/{uid}, its review and cancel posts and the shared sign-in steps under it. */
export function interactionEndpoints(deps: OidcDeps, signin: Signin<OidcKey>): Endpoint[] {
  const cookie = signInCookie(isHttps(deps.oidc.oidcUrl));

  /** The request and the browser's sign-in on its flow; `orExpired`: an expired request opens as its return. */
  async function open(req: PageRequest<unknown>, res: Response, orExpired: boolean) {
    const uid = String(req.params.uid);
    const signInId = parseCookies(req.headers.cookie)[cookie.name];
    const opened = await openInteraction(deps, { uid, signInId, orExpired });
    const formOrigin = redirectOrigin(
      opened.kind === 'parked' ? opened.interaction.redirectUri : opened.expired.redirectUri,
    );
    const b = await signin.open(req, res, {
      key: `oidc:${uid}`,
      base: `/interaction/${uid}`,
      app: opened.app,
      // The last step ends at the client's redirect URI (a form post's redirect chain is checked by form-action).
      formOrigins: [formOrigin],
      emailHint: opened.kind === 'parked' ? opened.interaction.loginHint : undefined,
    });
    return Object.assign(b, opened);
  }
  const load = (req: PageRequest<unknown>, res: Response) =>
    open(req, res, false) as Promise<InteractionPage>;
  const loadOrExpired = (req: PageRequest<unknown>, res: Response) =>
    open(req, res, true) as Promise<InteractionPage | ExpiredPage>;

  // A post: the page's target loaded and the flow's CSRF token and Origin checked, before the form's schema; then
  // back to the page.
  const page = signin.pages(load);
  const entry = signin.pages(loadOrExpired);

  const view = entry.view('/interaction/:uid', pageQuery, async (p, _req, res) => {
    const out = await viewInteraction(deps, p, {
      next: () => signin.nextStep(p, res),
      keepSignIn: (id) =>
        res.cookie(cookie.name, id, {
          ...cookie.options,
          maxAge: deps.ports.signInSessions.ttlSeconds * 1000,
        }),
    });
    switch (out.kind) {
      case 'expired':
        return sendExpiredPage(p as ExpiredPage, res);
      case 'review':
        return sendReview(p as InteractionPage, res, out.items);
      case 'answer':
        return sendAnswer(res, deps, out);
    }
  });

  function sendReview(p: InteractionPage, res: Response, items: DetailItem[]) {
    const { ctx, target } = p;
    const app = ctx.appName ?? '';
    const csrf = html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}">`;
    const body = html`${detailsView(ctx, {
      action: `${target.base}/review`,
      items,
      notice: p.takeNotice(),
      also: p.interaction.scopes.includes('offline_access')
        ? { key: 'offlineAccess', vars: { app } }
        : undefined,
    })}
<form method="post" action="${`${target.base}/cancel`}">${csrf}<button type="submit" class="link">${ctx.t('cancel', { app })}</button></form>`;
    sendPage(res, p, ctx.t('reviewHeading', { app }), body);
  }

  // prompt=consent: the person reviews every claim the application asks about, then the request goes on.
  const review = page.form('/interaction/:uid/review', reviewForm, (p, req) =>
    reviewInteraction(deps, p, (accountId, items) => signin.submitDetails(p, req, accountId, items)),
  );

  // The person declines, or returns from an expired request: the client hears access_denied.
  const cancel = entry.form('/interaction/:uid/cancel', plainForm, async (p, _req, res) =>
    sendAnswer(res, deps, await cancelInteraction(deps, p)),
  );

  return [
    view,
    review,
    cancel,
    ...signin.stepEndpoints(load, {
      email: '/interaction/:uid/email',
      code: '/interaction/:uid/email/code',
      reset: '/interaction/:uid/email/reset',
      resend: '/interaction/:uid/email/resend',
      codeSignIn: '/interaction/:uid/email/sign-in',
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
