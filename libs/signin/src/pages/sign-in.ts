// Sign-in pages: usernameless passkey, sign-up by emailed code then passkey registration; the passkey button and
// the code form are exported for a host's own re-authentication page.
import { html, type SafeHtml } from './html';
import type { MessageKey } from './i18n';
import type { PageContext } from './layout';

/** A one-time message on the next page view; `K` adds the host's own message keys. */
export interface Notice<K extends string = MessageKey> {
  key: K;
  vars?: Record<string, string | number>;
}

export function noticeBlock<K extends string>(
  ctx: PageContext<K>,
  notice: Notice<K> | undefined,
): SafeHtml | string {
  return notice ? html`<p class="notice" role="alert">${ctx.t(notice.key, notice.vars)}</p>` : '';
}

function csrfField(ctx: { csrf?: string }): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}">`;
}

export function passkeyButton(
  ctx: PageContext,
  base: string,
  kind: 'authenticate' | 'register',
  label: string,
): SafeHtml {
  const urls =
    kind === 'authenticate'
      ? { options: `${base}/passkey/authentication-options`, verify: `${base}/passkey/authentication` }
      : { options: `${base}/passkey/registration-options`, verify: `${base}/passkey/registration` };
  return html`<button type="button" class="primary" data-passkey="${kind}" data-options-url="${urls.options}"
  data-verify-url="${urls.verify}" data-error="${ctx.t('passkeyError')}" disabled>${label}</button>
<p class="status" role="status" aria-live="polite" data-passkey-status></p>
<noscript><p class="notice">${ctx.t('jsRequired')}</p></noscript>`;
}

export function emailCodeForm(ctx: PageContext, base: string, email: string): SafeHtml {
  return html`<section aria-labelledby="code-h">
<h2 id="code-h">${ctx.t('codeHeading')}</h2>
<p>${ctx.t('codeIntro', { email })}</p>
<form method="post" action="${`${base}/email/code`}" class="stack">
${csrfField(ctx)}
<label for="code">${ctx.t('codeLabel')}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required autofocus>
<button type="submit" class="primary">${ctx.t('codeButton')}</button>
</form>
<form method="post" action="${`${base}/email/reset`}">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('codeOther')}</button></form>
</section>`;
}

/** RFC 8628 section 5.4: the key goes to wherever the sign-in started, so say so before the person signs in. */
function originatorWarning(ctx: PageContext, show: boolean | undefined): SafeHtml | string {
  if (!show) return '';
  return html`<section class="warning" role="note" aria-labelledby="originator-h">
<h2 id="originator-h">${ctx.t('originatorHeading')}</h2>
<p>${ctx.t('originatorWarning', { app: ctx.appName ?? '' })}</p>
</section>`;
}

export function signInView<K extends string = never>(
  ctx: PageContext<MessageKey | K>,
  v: {
    base: string;
    pendingEmail?: string;
    verifiedEmail?: string;
    notice?: Notice<MessageKey | K>;
    /** The sign-in is handed to wherever it started (connect's STATUS_POLL or REVEAL): warn before signing in. */
    warnOriginator?: boolean;
    /** The sign-up form's address to start with (a checked email address). */
    emailHint?: string;
  },
): SafeHtml {
  const app = ctx.appName ?? '';
  if (v.verifiedEmail) {
    return html`<h1>${ctx.t('registerHeading')}</h1>${noticeBlock(ctx, v.notice)}
${originatorWarning(ctx, v.warnOriginator)}
<p>${ctx.t('registerIntro', { email: v.verifiedEmail })}</p>
${passkeyButton(ctx, v.base, 'register', ctx.t('registerButton'))}
<form method="post" action="${`${v.base}/email/reset`}">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('codeOther')}</button></form>`;
  }
  return html`<h1>${ctx.t('signInTo', { app })}</h1>
${noticeBlock(ctx, v.notice)}
${originatorWarning(ctx, v.warnOriginator)}
<p>${ctx.t('intro', { app })}</p>
<section aria-labelledby="passkey-h" class="card">
<h2 id="passkey-h">${ctx.t('passkeyHeading')}</h2>
${passkeyButton(ctx, v.base, 'authenticate', ctx.t('passkeyButton'))}
</section>
<section aria-labelledby="signup-h" class="card">
${
  v.pendingEmail
    ? emailCodeForm(ctx, v.base, v.pendingEmail)
    : html`<h2 id="signup-h">${ctx.t('signupHeading')}</h2>
<form method="post" action="${`${v.base}/email`}" class="stack">
${csrfField(ctx)}
<label for="email">${ctx.t('emailLabel')}</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" required value="${v.emailHint ?? ''}">
<button type="submit">${ctx.t('emailButton')}</button>
</form>`
}
</section>`;
}

export { csrfField };
