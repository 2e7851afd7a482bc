// The page of an authorization request that expired while the person was away: within a day of the expiry (the
// request's return record, store/interactions.ts) it offers "Return to {application}", whose guarded post answers
// the client once with access_denied (RFC 6749 4.1.2.1, OIDC Core 3.1.2.6) and the request's state, in the
// request's response mode (domain/interaction.ts cancelInteraction). The client and its exact redirect URI are
// checked again on view and on use: a client deleted, disabled or without that URI since gets the bare expired page
// and is never redirected to.
import { type Browser, html, PAGE_STATUSES, sendPage } from '@svc/signin';
import type { Response } from 'express';
import type { ExpiredInteraction } from '../domain/interaction';
import type { OidcKey } from '../pages/i18n-oidc';

/** An expired request's page: what is left of the request, on the browser's flow for it. */
export type ExpiredPage = Browser<OidcKey> & ExpiredInteraction;

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
