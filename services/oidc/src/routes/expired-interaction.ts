// The page of an authorization request that expired while the person was away: within a day of the expiry (the
// request's return record, store/interactions.ts) it offers "Return to {application}", whose guarded post answers
// the client once with access_denied (RFC 6749 4.1.2.1, OIDC Core 3.1.2.6) and the request's state, in the
// request's response mode. The client and its exact redirect URI are checked again on view and on use: a client
// deleted, disabled or without that URI since gets the bare expired page and is never redirected to.
import { type ApplicationContext, loadApplication } from '@svc/issuance';
import type { PageRequest } from '@svc/platform';
import { type Browser, html, PAGE_STATUSES, PageError, type Signin, sendPage } from '@svc/signin';
import type { Response } from 'express';
import type { OidcDeps } from '../deps';
import type { AuthorizeError } from '../domain/authorize-request';
import type { ExpiredReturn, OidcClient } from '../domain/ports';
import type { OidcKey } from '../pages/i18n-oidc';
import { redirectOrigin, sendErrorToClient } from './answer-client';
import { authorizeClientOf } from './authorize';

/** An expired request's page: what is left of the request, on the browser's flow for it. */
export interface ExpiredPage extends Browser<OidcKey> {
  uid: string;
  expired: ExpiredReturn;
}

/** What the client hears: the person did not complete the request (no error code names an expiry). */
export const EXPIRED_ERROR: AuthorizeError = {
  error: 'access_denied',
  description: 'The sign-in request expired.',
};

/** The client and its application while the client is active and still registers the redirect URI exactly. */
async function trustedReturn(
  deps: OidcDeps,
  back: ExpiredReturn,
): Promise<{ client: OidcClient; app: ApplicationContext } | undefined> {
  const client = await deps.ports.clients.get(back.clientId);
  const trusted = authorizeClientOf(client);
  if (!client || !trusted?.redirectUris.includes(back.redirectUri)) return undefined;
  const app = await loadApplication(deps.db, { id: client.applicationId });
  return app ? { client, app } : undefined;
}

/** Opens the page of a request that is no longer parked; 410 expired when its client cannot be answered. */
export async function openExpired(
  deps: OidcDeps,
  signin: Signin<OidcKey>,
  req: PageRequest<unknown>,
  res: Response,
  uid: string,
): Promise<ExpiredPage> {
  const expired = await deps.ports.interactions.expiredReturn(uid);
  const trusted = expired && (await trustedReturn(deps, expired));
  if (!expired || !trusted) throw new PageError('expired');
  const b = await signin.open(req, res, {
    key: `oidc:${uid}`,
    base: `/interaction/${uid}`,
    app: trusted.app,
    // The post ends at the client's redirect URI (a form post's redirect chain is checked by form-action).
    formOrigins: [redirectOrigin(expired.redirectUri)],
  });
  return Object.assign(b, { uid, expired });
}

/** The expired page: 410, with the button back to the application (its CSRF token kept on the flow). */
export async function sendExpiredPage(p: ExpiredPage, res: Response): Promise<void> {
  const { ctx, target } = p;
  const app = ctx.appName ?? '';
  await p.save();
  const body = html`<h1>${ctx.t('expiredHeading')}</h1>
<p>${ctx.t('expiredMessage', { app })}</p>
<form method="post" action="${`${target.base}/cancel`}"><input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}"><button type="submit">${ctx.t('returnTo', { app })}</button></form>`;
  sendPage(res, p, ctx.t('expiredHeading'), body, PAGE_STATUSES.expired);
}

/**
 * The button's post (CSRF and Origin checked by the page kit): takes the return record (one caller wins, a
 * second post gets the expired page), checks the client again and answers it.
 */
export async function returnExpired(deps: OidcDeps, p: ExpiredPage, res: Response): Promise<void> {
  const back = await deps.ports.interactions.takeExpiredReturn(p.uid);
  if (!back || !(await trustedReturn(deps, back))) throw new PageError('expired');
  const target = { redirectUri: back.redirectUri, responseMode: back.responseMode, state: back.state };
  sendErrorToClient(res, deps, target, EXPIRED_ERROR);
}
