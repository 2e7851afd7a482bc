// The page shell: language, title, stylesheet and scripts from /assets (no inline script or style), CSRF meta.
import { html, type SafeHtml } from './html';
import { LOCALES, type Locale, type MessageKey, type Translate } from './i18n';

/** What every page view reads: the locale, its translator (shared strings plus the host's `K`), the CSRF token. */
export interface PageContext<K extends string = MessageKey> {
  locale: Locale;
  t: Translate<K>;
  /**
   * Path of the current page, with the query that lands back on it (an /authorize request's parameters), for the
   * language switch, which replaces only `lang`.
   */
  path: string;
  csrf?: string;
  appName?: string;
  /** Lifetime of an emailed code (EMAIL_CODE_TTL_SECONDS): the code page states it as the mail does. */
  codeTtlSeconds?: number;
}

export function layout<K extends string>(
  ctx: PageContext<K>,
  title: string,
  body: SafeHtml,
  opts: { scripts?: boolean } = {},
): string {
  const switcher = LOCALES.filter((l) => l !== ctx.locale).map(
    (l) => html`<a href="${switchHref(ctx.path, l)}" hreflang="${l}" lang="${l}">${label(l)}</a>`,
  );
  return html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
${ctx.csrf ? html`<meta name="csrf-token" content="${ctx.csrf}">` : ''}
<title>${title}</title>
<link rel="stylesheet" href="/assets/signin.css">
${opts.scripts ? html`<script src="/assets/simplewebauthn-browser.js" defer></script><script src="/assets/signin.js" defer></script>` : ''}
</head>
<body>
<header class="top"><span class="brand">${ctx.appName ?? ''}</span><nav class="lang" aria-label="Language">${switcher}</nav></header>
<main id="main">
${body}
</main>
</body>
</html>`.value;
}

/** The current page (path and query) in locale `l`: its query kept, `lang` set (escaped by the template). */
export function switchHref(path: string, l: Locale): string {
  const at = path.indexOf('?');
  if (at === -1) return `${path}?lang=${l}`;
  const query = new URLSearchParams(path.slice(at + 1));
  query.set('lang', l);
  return `${path.slice(0, at)}?${query}`;
}

function label(l: Locale): string {
  return l === 'zh-CN' ? '简体中文' : 'English';
}
