// GET and POST /end-session: RP-initiated logout. With a verified id_token_hint: revoke the hinted session, end the
// person's sign-in on this host, redirect (303) to the registered post_logout_redirect_uri with state, or show the
// signed-out page. Without one: a confirmation page (CSRF double-submit: a random value in a cookie and the form),
// and only the confirmed POST ends the sign-in. A refused request gets a page, never a redirect.
import { randomBytes } from 'node:crypto';
import {
  type EndpointDoc,
  type Locale,
  localeFromAcceptLanguage,
  oauthAnswerOf,
  pageEndpoint,
  queryParams,
  queryText,
} from '@svc/platform';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { OidcDeps } from '../deps';
import { type EndSessionPlan, EndSessionRefused, endSession } from '../domain/end-session';
import { signInCookie } from '../pages-config';
import { confirmPage, pageHeaders, refusedPage, signedOutPage } from './end-session-page';

const END_SESSION: EndpointDoc = {
  summary: 'RP-initiated logout: a confirmation or signed-out page, or a redirect to the registered URI.',
  answers: [{ html: true }, { status: 303, redirect: true }],
  errorPages: [400],
};

/**
 * The logout confirmation's CSRF cookie: `__Host-oidc_logout_csrf` over HTTPS (Secure, Path=/, no Domain), so a
 * sibling subdomain or a plain-HTTP hop cannot plant a value of its own and confirm a logout the person never
 * asked for; the plain name on loopback HTTP. SameSite=Strict: never sent from another site's page.
 */
function logoutCsrfCookie(https: boolean) {
  return {
    name: https ? '__Host-oidc_logout_csrf' : 'oidc_logout_csrf',
    options: { httpOnly: true, sameSite: 'strict' as const, secure: https, path: '/' },
  };
}

/** One parameter: at most once, at most 8192 characters of storable text. */
const param = (description: string) => queryText(8192).optional().describe(description);

/** The parameters of a GET's query; a POST's form adds the confirmation's. */
const endSessionQuery = queryParams({
  id_token_hint: param('An ID token this provider issued.'),
  post_logout_redirect_uri: param('A registered post-logout redirect URI.'),
  state: param('Returned to the relying party.'),
  client_id: param('The relying party.'),
  ui_locales: param('Preferred page languages.'),
});
const endSessionForm = endSessionQuery.extend({
  confirm: param('yes: sign out.'),
  csrf: param('The CSRF value of the confirmation page.'),
});
type EndSessionParams = z.infer<typeof endSessionForm>;

function cookies(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

function localeOf(req: Request, uiLocales: string | undefined): Locale {
  for (const tag of (uiLocales ?? '').split(' ')) {
    if (/^zh\b/i.test(tag)) return 'zh-CN';
    if (/^en\b/i.test(tag)) return 'en-US';
  }
  return localeFromAcceptLanguage(req.headers['accept-language']);
}

export function endSessionEndpoints(deps: OidcDeps) {
  const https = deps.oidc.oidcUrl.startsWith('https:');
  const signIn = signInCookie(https);
  const csrfCookie = logoutCsrfCookie(https);

  /** The browser's sign-in identifier; a cookie that does not decode is no identifier (not a 500). */
  function signInIdOf(req: Request): string | undefined {
    const raw = cookies(req).get(signIn.name);
    try {
      return raw ? decodeURIComponent(raw) : undefined;
    } catch {
      return undefined;
    }
  }

  function finish(res: Response, locale: Locale, plan: EndSessionPlan) {
    if (plan.redirectTo) {
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).redirect(303, plan.redirectTo);
      return;
    }
    res.set(pageHeaders()).send(signedOutPage(locale));
  }

  // `p`: the query of a GET, the form of a POST, checked by their schemas.
  const handle = async (req: Request, res: Response, p: EndSessionParams) => {
    const locale = localeOf(req, p.ui_locales);
    try {
      const out = await endSession(deps, {
        idTokenHint: p.id_token_hint || undefined,
        postLogoutRedirectUri: p.post_logout_redirect_uri || undefined,
        state: p.state,
        clientId: p.client_id || undefined,
        signInId: signInIdOf(req),
        confirmPost: req.method === 'POST' && p.confirm === 'yes',
        csrf: { cookie: cookies(req).get(csrfCookie.name), form: p.csrf },
      });
      const { plan } = out;
      if (out.kind === 'ended') {
        if (out.signInEnded) res.clearCookie(signIn.name, signIn.options);
        if (out.confirmed) res.clearCookie(csrfCookie.name, csrfCookie.options);
        finish(res, locale, plan);
        return;
      }
      const csrf = randomBytes(24).toString('base64url');
      res.cookie(csrfCookie.name, csrf, csrfCookie.options);
      res.set(pageHeaders(plan.redirectTo)).send(
        confirmPage(locale, {
          csrf,
          client_id: plan.client?.clientId,
          post_logout_redirect_uri: p.post_logout_redirect_uri || undefined,
          state: p.state,
          ui_locales: p.ui_locales,
        }),
      );
    } catch (err) {
      if (!(err instanceof EndSessionRefused)) throw err;
      // A logout request that cannot be honoured is an invalid request (its status is the OAuth table's).
      res
        .status(oauthAnswerOf('invalid_request').status)
        .set(pageHeaders())
        .send(refusedPage(locale, err.description));
    }
  };
  return [
    pageEndpoint({
      method: 'GET',
      path: '/end-session',
      body: { kind: 'none' },
      query: endSessionQuery,
      noStore: true,
      doc: END_SESSION,
      page: (req, res) => handle(req as unknown as Request, res, req.query),
    }),
    pageEndpoint({
      method: 'POST',
      path: '/end-session',
      body: { kind: 'form', schema: endSessionForm, limit: 32 * 1024, maxFields: 20 },
      noStore: true,
      doc: END_SESSION,
      page: (req, res) => handle(req as unknown as Request, res, req.body),
    }),
  ];
}
