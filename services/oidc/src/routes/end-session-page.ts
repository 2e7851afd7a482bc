// The end-session pages (confirmation, signed out, refused) in both locales: server-rendered, no script, a strict
// Content-Security-Policy whose form-action also admits the post-logout redirect target (browsers apply
// form-action to the redirect that follows a form submission).
import type { Locale } from '@svc/platform';

const TEXT = {
  'en-US': {
    confirmTitle: 'Sign out?',
    confirmBody: 'Do you want to sign out of this site?',
    confirm: 'Sign out',
    doneTitle: 'Signed out',
    doneBody: 'You are signed out.',
    refusedTitle: 'Sign-out request not accepted',
  },
  'zh-CN': {
    confirmTitle: '退出登录？',
    confirmBody: '是否退出此网站的登录？',
    confirm: '退出登录',
    doneTitle: '已退出登录',
    doneBody: '您已退出登录。',
    refusedTitle: '未接受退出登录请求',
  },
} as const;

const htmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function layout(locale: Locale, title: string, body: string): string {
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${htmlEscape(title)}</title></head><body><main><h1>${htmlEscape(title)}</h1>${body}</main></body></html>`;
}

export function pageHeaders(formTarget?: string): Record<string, string> {
  const extra = formTarget ? ` ${new URL(formTarget).origin}` : '';
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Content-Security-Policy': `default-src 'none'; form-action 'self'${extra}; base-uri 'none'; frame-ancestors 'none'`,
  };
}

export function confirmPage(locale: Locale, fields: Record<string, string | undefined>): string {
  const t = TEXT[locale];
  const hidden = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${htmlEscape(k)}" value="${htmlEscape(v)}">`)
    .join('');
  return layout(
    locale,
    t.confirmTitle,
    `<p>${htmlEscape(t.confirmBody)}</p><form method="post" action="/end-session">${hidden}<button type="submit" name="confirm" value="yes">${htmlEscape(t.confirm)}</button></form>`,
  );
}

export function signedOutPage(locale: Locale): string {
  const t = TEXT[locale];
  return layout(locale, t.doneTitle, `<p>${htmlEscape(t.doneBody)}</p>`);
}

export function refusedPage(locale: Locale, description: string): string {
  return layout(locale, TEXT[locale].refusedTitle, `<p>${htmlEscape(description)}</p>`);
}
