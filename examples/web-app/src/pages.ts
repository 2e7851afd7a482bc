// The example's few HTML pages: plain, escaped, no scripts.
import type { ReceivedEvent } from './event-log.ts';

const escapeHtml = (value: unknown) => String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The site's icon, served at /favicon.svg: a key on a rounded square. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2a5bd7"/><circle cx="12" cy="16" r="5" fill="none" stroke="#fff" stroke-width="3"/><path d="M17 16h10m-3 0v4" stroke="#fff" stroke-width="3" fill="none"/></svg>`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}
th{text-align:left;padding:.25rem 1rem .25rem 0}td{padding:.25rem 0;word-break:break-all}
form{margin-top:1rem}button{font:inherit;padding:.4rem 1rem}</style></head>
<body>${body}</body></html>`;
}

export function homePage(problems: string[]): string {
  const notes = problems.map((p) => `<p role="note">${escapeHtml(p)}</p>`).join('');
  return layout(
    'Example app',
    `<h1>Example app</h1><p>An Express site that signs people in through the sign-in service.</p>
<p><a href="/login">Sign in</a></p><p><a href="/oidc/login">Sign in with OpenID Connect</a></p>
<p><a href="/events">Events received</a></p>${notes}`,
  );
}

/** `sid` is the access token's session: what an operator names to end it (and a session-revoked event names). */
export function mePage(via: string, profile: object, sid: string): string {
  const rows = Object.entries(profile)
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  return layout(
    'Signed in',
    `<h1>You are signed in</h1><p>Signed in through ${escapeHtml(via)}.</p><table>${rows}</table>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>
<p>This sign-in's session is <code>${escapeHtml(sid)}</code>: <code>pnpm admin sessions suspend --sid ${escapeHtml(sid)}</code>
ends it, and this site hears of it.</p>
<p><a href="/events">Events received</a></p>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p><p><a href="/">Back</a></p>`);
}

/** The events the service sent this site, newest first: what each said and how many sessions it signed out. */
export function eventsPage(events: readonly ReceivedEvent[]): string {
  const cell = (v: unknown) => `<td>${v === undefined ? '' : escapeHtml(v)}</td>`;
  const rows = events
    .map(
      (e) =>
        `<tr>${cell(e.receivedAt.toISOString())}${cell(e.name)}${cell(e.subject)}${cell(e.sid)}${cell(e.reason)}${cell(e.signedOut)}</tr>`,
    )
    .join('');
  const table = events.length
    ? `<table><thead><tr><th scope="col">Received</th><th scope="col">Event</th><th scope="col">Subject</th>
<th scope="col">Session</th><th scope="col">Reason</th><th scope="col">Signed out</th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p>No events yet.</p>';
  return layout(
    'Events received',
    `<h1>Events received</h1><p>What the sign-in service told this site (the last 50), newest first.</p>${table}
<p><a href="/">Back</a></p>`,
  );
}
