// The small page every host answers at `GET /` (which host this is, what it serves, where its documentation is and,
// outside production, where the development mailbox is) and its favicon, so a person who opens a host's URL finds a
// signpost instead of a JSON 404. No script, no style, no outside resource: the strictest CSP holds.
import { type Endpoint, pageEndpoint } from './endpoints';

export interface LandingInfo {
  /** The host's name (`connect`). */
  host: string;
  /** One sentence: what the host serves. */
  serves: string;
  /** The host's page under docs/ in the repository (`docs/connect.md`). */
  docs: string;
  /** Links on this host worth opening (`/openapi.json`, discovery, the approval page). */
  links: readonly { href: string; label: string }[];
  /** The development mailbox's page (outside production only; the host's config leaves it unset in production). */
  mailboxUrl?: string;
}

const CSP = "default-src 'none'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A key in a rounded square: the fleet's icon, 1 kB of SVG. */
const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect width="32" height="32" rx="7" fill="#1f4e8c"/>' +
    '<circle cx="12" cy="16" r="6" fill="none" stroke="#fff" stroke-width="3"/>' +
    '<path d="M18 16h10M24 16v5M28 16v4" stroke="#fff" stroke-width="3" fill="none"/></svg>',
);

export function landingHtml(info: LandingInfo): string {
  const links = [...info.links];
  if (info.mailboxUrl) {
    links.push({ href: `${info.mailboxUrl}/`, label: 'Development mailbox (every code the fleet mails)' });
  }
  const items = links.map((l) => `<li><a href="${escape(l.href)}">${escape(l.label)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(info.host)} — Sign-in service</title><link rel="icon" href="/favicon.ico" type="image/svg+xml"></head>
<body><main><h1>Sign-in service: the ${escape(info.host)} host</h1>
<p>${escape(info.serves)}</p>
<ul>${items}</ul>
<p>Documentation: <code>${escape(info.docs)}</code> in the repository; the API of this host is described at
<a href="/openapi.json">/openapi.json</a>.</p></main></body></html>
`;
}

/**
 * `GET {page}` (the host passes `'/'`) and `GET {favicon}` (`'/favicon.ico'`): the host's signpost page and icon. The
 * paths are the host's literals, so its table names them where it is declared.
 */
export function landingEndpoints(
  paths: { page: '/'; favicon: '/favicon.ico' },
  info: LandingInfo,
): Endpoint[] {
  const html = Buffer.from(landingHtml(info));
  return [
    pageEndpoint({
      method: 'GET',
      path: paths.page,
      body: { kind: 'none' },
      noStore: false,
      doc: {
        summary: `What the ${info.host} host is, with links to its documentation.`,
        answers: [{ media: ['text/html'], headers: { 'Content-Security-Policy': CSP } }],
        errorPages: [],
      },
      page: (_req, res) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('Content-Security-Policy', CSP);
        res.setHeader('Cache-Control', 'no-cache');
        res.send(html);
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
