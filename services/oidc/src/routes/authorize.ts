// GET and POST /authorize: the request told apart (domain/authorize-start), an error page while the client or
// its redirect URI is not trusted, send later errors to the client, and park a valid request for the pages at
// /interaction/{uid}, which decide sign-in, consent and prompt=none with the browser's sign-in cookie in hand
// (a cross-site POST carries no SameSite=Lax cookie; the redirect to the page is a same-site GET that does).
// Every request first counts against its client address's limit: over it, a 429 error page, nothing parked.
import {
  countAuthorizeOutcome,
  type Endpoint,
  type EndpointDoc,
  type PageRequest,
  pageEndpoint,
} from '@svc/platform';
import type { Signin } from '@svc/signin';
import type { Response } from 'express';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { RECOGNISED } from '../domain/authorize-request';
import { startAuthorization } from '../domain/authorize-start';
import type { AuthorizeErrorCode } from '../domain/authorize-terms';
import type { OidcKey } from '../pages/i18n-oidc';
import type { OidcPageError } from '../pages/page-statuses';
import { sendAnswer } from './answer-client';

function pageKey(error: AuthorizeErrorCode): OidcPageError {
  if (error === 'invalid_client') return 'unknownClient';
  if (error === 'invalid_redirect_uri') return 'badRedirect';
  return 'badRequest';
}

// Where the error page's language switch leads: the same request as a GET (a POSTed form's parameters as the
// query; OIDC Core 3.1.2.1 takes both), so the person lands back on this page in the other language. A form too
// large for a sensible URL gets the bare path.
function sameRequestHere(req: PageRequest<unknown>, pairs: [string, string][]): string {
  if (req.method === 'GET') return req.originalUrl;
  const query = new URLSearchParams(pairs).toString();
  return query.length > 0 && query.length <= 4096 ? `${req.path}?${query}` : req.path;
}

// Parameters read with repeats kept (a repeated one's values are a list, in order) as name-value pairs: each
// name's values keep their order, which is all the domain's repeat and empty-value rules look at.
function pairsOf(params: Record<string, string | string[] | undefined>): [string, string][] {
  return Object.entries(params).flatMap(([name, v]) =>
    (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((value): [string, string] => [name, value]),
  );
}

/** A parameter as sent: one value, or every value of a repeated one (the domain answers the repeat). */
const asSent = z.union([z.string(), z.array(z.string())]).optional();

/** The form as sent, repeats kept as lists (`repeats: 'list'`). */
const authorizeForm = z.record(z.string(), asSent.unwrap());

/**
 * The query: the recognised parameters as sent (nothing refused here: validateAuthorizeRequest decides between
 * the client and an error page) and the error page's `lang`, which an unknown or repeated value leaves unset.
 * Every other parameter is ignored (OAuth 2.0 3.1).
 */
const authorizeQuery = z.object(
  Object.fromEntries([...RECOGNISED, 'lang'].map((name) => [name, asSent])) as Record<
    (typeof RECOGNISED)[number] | 'lang',
    typeof asSent
  >,
);

const AUTHORIZE: EndpointDoc = {
  summary:
    'Authorization request: a redirect to the sign-in pages, an error to the client, or an error page.',
  // 400: the client or its redirect URI is not trusted. 429: the client address's limit
  // (OIDC_AUTHORIZE_RATE_PER_MINUTE), a page, never a redirect: the redirect_uri is not checked at that point.
  errorPages: [400, 429],
  errorPageHeaders: { 429: { 'Retry-After': 'Seconds until the limit admits another request.' } },
};

/** GET and POST /authorize. */
export function authorizeEndpoints(deps: OidcDeps, signin: Signin<OidcKey>): Endpoint[] {
  async function authorize(
    req: PageRequest<unknown>,
    res: Response,
    pairs: [string, string][],
  ): Promise<void> {
    // TooManyAttempts (429, Retry-After) goes to the pages' error handler: the shared "too many" page.
    const start = await startAuthorization(deps, pairs, req.ip ?? '');
    if (start.kind === 'page') {
      countAuthorizeOutcome(deps.metrics, 'error_page');
      return signin.sendBarePage(req, res, pageKey(start.error), sameRequestHere(req, pairs));
    }
    if (start.kind === 'answer') return sendAnswer(res, deps, start);
    countAuthorizeOutcome(deps.metrics, 'interaction');
    const lang = start.uiLocale ? `?lang=${start.uiLocale}` : '';
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, `/interaction/${start.uid}${lang}`);
  }

  return [
    pageEndpoint({
      method: 'GET',
      path: '/authorize',
      body: { kind: 'none' },
      query: authorizeQuery,
      noStore: false,
      doc: AUTHORIZE,
      page: (req, res) => authorize(req, res, pairsOf(req.query)),
    }),
    // The form as sent, repeats kept: a repeated parameter is the same invalid_request as on GET (sent to the
    // client when client_id and redirect_uri are single and trusted, an error page otherwise).
    pageEndpoint({
      method: 'POST',
      path: '/authorize',
      body: { kind: 'form', schema: authorizeForm, limit: 32 * 1024, repeats: 'list' },
      noStore: false,
      doc: AUTHORIZE,
      page: (req, res) => authorize(req, res, pairsOf(req.body)),
    }),
  ];
}
