// The small page every host answers at `GET /` (which host this is, what it serves, where its documentation is and,
// outside production, where the development mailbox is) and its favicon, so a person who opens a host's URL finds a
// signpost instead of a JSON 404. No script and no outside resource; its one style element is allowed by its hash
// (never 'unsafe-inline'), so it reads like the sign-in pages on every host, those without /assets too.
import { createHash } from 'node:crypto';
import type { HostName } from './config';
import { type Endpoint, pageEndpoint } from './endpoints';
import { html, SafeHtml } from './html';

interface LandingInfo {
  /** One sentence: what the host serves. */
  serves: string;
  /** Links on this host worth opening (discovery, the approval page). */
  links: readonly { href: string; label: string }[];
}

/** What each host's page says: one table, so the five pages stay alike. */
const LANDING: Record<HostName, LandingInfo> = {
  connect: {
    serves:
      '/establish and the browser sign-in pages applications send people to (passkeys, sign-up by emailed code, consent, terms), /redeem, and each person’s account page.',
    links: [{ href: '/account', label: 'Your account (passkeys, applications, sign-out)' }],
  },
  native: {
    serves:
      'Direct issue for native clients, agents and automations (access keys, public-key assertions, game-platform tickets) and /errand.',
    links: [],
  },
  session: {
    serves:
      'Token refresh, introspection, logout, revoke-all, /userinfo, /claim-state and each application’s JWK Set, for application backends.',
    links: [],
  },
  device: {
    serves:
      'The device authorization flow for TVs, consoles and CLIs: /device-authorize, /device-token, and the approval page where a person types the code.',
    links: [{ href: '/device', label: 'Approve a device (type the code it shows)' }],
  },
  oidc: {
    serves:
      'An OpenID Provider for browser applications and devices: discovery, /authorize with the sign-in pages, /token, /userinfo, /end-session.',
    links: [
      { href: '/.well-known/openid-configuration', label: 'OpenID Provider discovery' },
      { href: '/.well-known/jwks.json', label: 'The ID-token key set' },
    ],
  },
  management: {
    serves:
      'The management API for operators and their automation: every admin command under /v1/ with an operator key (Bearer mk_...), and the audit trail.',
    links: [{ href: '/openapi.json', label: 'The OpenAPI document of every route' }],
  },
};

/** The sign-in pages' look (libs/signin's signin.css, its few rules for a card of text and links), light and dark. */
const STYLE =
  ':root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0b57d0}' +
  '@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;' +
  '--line:#30363d;--accent:#4c8dff}}' +
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}' +
  'main{max-width:40rem;margin:2rem auto 3rem;padding:1.5rem 1.25rem;background:var(--card);' +
  'border:1px solid var(--line);border-radius:12px}' +
  'h1{font-size:1.6rem;line-height:1.25;margin:0 0 .75rem}a{color:var(--accent)}' +
  'ul{padding-left:1.25rem}li{margin:.35rem 0}.muted{color:var(--muted);font-size:.95rem}';

const CSP =
  "default-src 'none'; img-src 'self'; " +
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A key in a rounded square: the fleet's icon, 1 kB of SVG. */
const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect width="32" height="32" rx="7" fill="#1f4e8c"/>' +
    '<circle cx="12" cy="16" r="6" fill="none" stroke="#fff" stroke-width="3"/>' +
    '<path d="M18 16h10M24 16v5M28 16v4" stroke="#fff" stroke-width="3" fill="none"/></svg>',
);

/** The page of `host`; `mailboxUrl` (the development mailbox, never in production) adds a link to it. */
export function landingHtml(host: HostName, mailboxUrl: string | undefined): string {
  const info = LANDING[host];
  const links = [...info.links];
  if (mailboxUrl)
    links.push({ href: `${mailboxUrl}/`, label: 'Development mailbox (every code the fleet mails)' });
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${host} — Sign-in service</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>${new SafeHtml(STYLE)}</style></head>
<body><main><h1>Sign-in service: the ${host} host</h1>
<p>${info.serves}</p>
<ul>${links.map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}</ul>
<p class="muted">Documentation: <code>docs/${host}.md</code> in the repository; the API of this host is described at
<a href="/openapi.json">/openapi.json</a>.</p></main></body></html>
`.value;
}

/**
 * `GET {page}` (the host passes `'/'`) and `GET {favicon}` (`'/favicon.ico'`): the host's signpost page and icon. The
 * paths are the host's literals, so its table names them where it is declared.
 */
export function landingEndpoints(
  paths: { page: '/'; favicon: '/favicon.ico' },
  host: HostName,
  mailboxUrl: string | undefined,
): Endpoint[] {
  const page = Buffer.from(landingHtml(host, mailboxUrl));
  return [
    pageEndpoint({
      method: 'GET',
      path: paths.page,
      body: { kind: 'none' },
      noStore: false,
      doc: {
        summary: `What the ${host} host is, with links to its documentation.`,
        answers: [{ media: ['text/html'], headers: { 'Content-Security-Policy': CSP } }],
        errorPages: [],
      },
      page: (_req, res) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('Content-Security-Policy', CSP);
        res.setHeader('Cache-Control', 'no-cache');
        res.send(page);
      },
    }),
    pageEndpoint({
      method: 'GET',
      path: paths.favicon,
      body: { kind: 'none' },
      noStore: false,
      doc: {
        summary: "The service's icon (SVG).",
        answers: [{ media: ['image/svg+xml'], headers: { 'Cache-Control': 'public, max-age=86400' } }],
        errorPages: [],
      },
      page: (_req, res) => {
        res.setHeader('Content-Type', 'image/svg+xml');
        res.setHeader('Cache-Control', 'public, max-age=86400');
        res.send(FAVICON);
      },
    }),
  ];
}
