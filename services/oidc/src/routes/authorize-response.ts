// Encodes an authorization response (success or error) in its response mode: parameters added to the redirect
// URI's query, put in its fragment, or posted by an auto-submitting page (OAuth 2.0 Form Post Response Mode).
// Every response names the issuer (`iss`, RFC 9207) so a client talking to several providers cannot be mixed up.
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '@svc/signin';
import type { ResponseParams } from '../domain/authorize-answer';
import type { AuthorizeError, ResponseTarget } from '../domain/authorize-request';

export type { ResponseParams } from '../domain/authorize-answer';

export type AuthorizationAnswer =
  | { kind: 'redirect'; status: 303; location: string; headers: Record<string, string> }
  | { kind: 'form_post'; status: 200; html: string; headers: Record<string, string> };

// Never cached, never leaked through Referer (codes and tokens ride in the URL or the page).
const COMMON_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'Referrer-Policy': 'no-referrer' };

/** The error members of OIDC Core 3.1.2.6 / RFC 6749 4.1.2.1. */
export function errorParams(error: AuthorizeError): ResponseParams {
  return { error: error.error, error_description: error.description };
}

/**
 * The answer that sends `params` (plus `state` and `iss`) to the target in its response mode. `nonce` is the
 * CSP nonce of the form_post page's one script; a fresh one is made when absent.
 */
export function encodeAuthorizationResponse(
  target: ResponseTarget,
  params: ResponseParams,
  opts: { issuer: string; cspNonce?: string },
): AuthorizationAnswer {
  const members = [...Object.entries(params), ['state', target.state], ['iss', opts.issuer]].filter(
    (e): e is [string, string] => typeof e[1] === 'string',
  );
  const base = withoutFragment(target.redirectUri);
  switch (target.responseMode) {
    case 'query': {
      const query = new URLSearchParams(members).toString();
      const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
      return redirect(`${base}${sep}${query}`);
    }
    case 'fragment':
      return redirect(`${base}#${new URLSearchParams(members).toString()}`);
    case 'form_post':
      return formPost(base, members, opts.cspNonce ?? randomBytes(16).toString('base64url'));
  }
}

function redirect(location: string): AuthorizationAnswer {
  return { kind: 'redirect', status: 303, location, headers: { ...COMMON_HEADERS } };
}

// A registered redirect URI has no fragment (RFC 6749 3.1.2); drop one defensively so parameters cannot hide
// behind it or mix with it.
function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash === -1 ? uri : uri.slice(0, hash);
}

// The redirect URI's origin, or its scheme alone for a URI without one (a native app's private-use scheme).
function formActionSource(action: string): string {
  const url = new URL(action);
  return url.origin === 'null' ? url.protocol : url.origin;
}

// The page posts the parameters to the redirect URI on load; without JavaScript a button does the same. Its CSP
// admits the one nonce'd script and form submission to the redirect URI's origin only.
function formPost(action: string, members: [string, string][], nonce: string): AuthorizationAnswer {
  const inputs = members
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>Continue</title>
</head>
<body>
<form method="post" action="${escapeHtml(action)}">
${inputs}
<noscript><button type="submit">Continue</button></noscript>
</form>
<script nonce="${nonce}">document.forms[0].submit();</script>
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `form-action ${formActionSource(action)}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    kind: 'form_post',
    status: 200,
    html,
    headers: {
      ...COMMON_HEADERS,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': csp,
    },
  };
}
