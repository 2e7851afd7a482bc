// Sign-in pages: usernameless passkey (the button, and autofill in the email field), sign-up by emailed code then
// passkey registration, and the page of a person whose proven address already has an account (sign in with the
// passkey this device holds, by the email code alone, or with a new passkey). The passkey button and the code form
// are exported for a host's own re-authentication page.
import { codeLifetime } from '../domain/email-codes';
import { html, type SafeHtml } from './html';
import type { MessageKey } from './i18n';
import type { PageContext } from './layout';

/** A one-time message on the next page view; `K` adds the host's own message keys. */
export interface Notice<K extends string = MessageKey> {
  key: K;
  vars?: Record<string, string | number>;
}

/**
 * The notice of a post's outcome: announced (role alert) and focused when the page opens (autofocus; it comes
 * before every other autofocus of the page), so a keyboard or screen-reader user lands on it.
 */
export function noticeBlock<K extends string>(
  ctx: PageContext<K>,
  notice: Notice<K> | undefined,
): SafeHtml | string {
  return notice
    ? html`<p class="notice" role="alert" tabindex="-1" autofocus data-notice>${ctx.t(notice.key, notice.vars)}</p>`
    : '';
}

function csrfField(ctx: { csrf?: string }): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}">`;
}

const ceremonyUrls = (base: string, kind: 'authenticate' | 'register') =>
  kind === 'authenticate'
    ? { options: `${base}/passkey/authentication-options`, verify: `${base}/passkey/authentication` }
    : { options: `${base}/passkey/registration-options`, verify: `${base}/passkey/registration` };

/**
 * A passkey button (rendered disabled; the page script enables it) and its status line. A refusal is explained by
 * its cause (cancelled, timed out, a passkey this device already holds for the account, or refused by the
 * service), announced and focused; a registration this device already holds a passkey for reveals the way
 * forward: a button signing in with that passkey.
 */
export function passkeyButton(
  ctx: PageContext,
  base: string,
  kind: 'authenticate' | 'register',
  label: string,
): SafeHtml {
  const urls = ceremonyUrls(base, kind);
  const signIn = ceremonyUrls(base, 'authenticate');
  const cancelled = kind === 'authenticate' ? 'passkeyCancelledSignIn' : 'passkeyCancelledCreate';
  return html`<button type="button" class="primary" data-passkey="${kind}" data-options-url="${urls.options}"
  data-verify-url="${urls.verify}" data-error="${ctx.t('passkeyError')}" data-error-cancelled="${ctx.t(cancelled)}"
  data-error-timeout="${ctx.t('passkeyTimedOut')}" data-error-exists="${ctx.t('passkeyExists')}" disabled>${label}</button>
<p class="status" role="alert" tabindex="-1" data-passkey-status></p>
${
  kind === 'register'
    ? html`<button type="button" data-passkey="authenticate" data-passkey-exists data-options-url="${signIn.options}"
  data-verify-url="${signIn.verify}" data-error="${ctx.t('passkeyError')}" data-error-cancelled="${ctx.t('passkeyCancelledSignIn')}"
  data-error-timeout="${ctx.t('passkeyTimedOut')}" data-error-exists="${ctx.t('passkeyExists')}" hidden disabled>${ctx.t('passkeyExistsButton')}</button>`
    : ''
}
<noscript><p class="notice">${ctx.t('jsRequired')}</p></noscript>`;
}

/**
 * The code form: the lifetime the mail states (the same EMAIL_CODE_TTL_SECONDS, in the page's language), a new
 * code on request (`resendAction`; the one before stops working), and a way to use another address.
 */
export function emailCodeForm(
  ctx: PageContext,
  base: string,
  email: string,
  resendAction = `${base}/email/resend`,
): SafeHtml {
  const lifetime = codeLifetime(ctx.locale, ctx.codeTtlSeconds ?? 600);
  return html`<section aria-labelledby="code-h">
<h2 id="code-h">${ctx.t('codeHeading')}</h2>
<p id="code-intro">${ctx.t('codeIntro', { email, lifetime })}</p>
<form method="post" action="${`${base}/email/code`}" class="stack">
${csrfField(ctx)}
<label for="code">${ctx.t('codeLabel')}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required autofocus aria-describedby="code-intro">
<button type="submit" class="primary">${ctx.t('codeButton')}</button>
</form>
<div class="row more">
<form method="post" action="${resendAction}">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('codeResend')}</button></form>
<form method="post" action="${`${base}/email/reset`}">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('codeOther')}</button></form>
</div>
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

const otherAddress = (ctx: PageContext, base: string) =>
  html`<form method="post" class="more" action="${`${base}/email/reset`}">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('codeOther')}</button></form>`;

/**
 * The address proven by its code already has an account: say so (the person just proved the address, so this
 * tells them nothing about anyone else's) and continue as a sign-in: the passkey this device holds, the email code
 * alone, or a new passkey on this device (one lost, or none here).
 */
function returningView<K extends string>(
  ctx: PageContext<MessageKey | K>,
  v: { base: string; email: string; notice?: Notice<MessageKey | K> },
): SafeHtml {
  const app = ctx.appName ?? '';
  return html`<h1>${ctx.t('returningHeading', { app })}</h1>
${noticeBlock(ctx, v.notice)}
<p>${ctx.t('returningIntro', { email: v.email, app })}</p>
<section aria-labelledby="returning-passkey-h" class="card">
<h2 id="returning-passkey-h">${ctx.t('returningPasskeyHeading')}</h2>
${passkeyButton(ctx, v.base, 'authenticate', ctx.t('passkeyButton'))}
</section>
<section aria-labelledby="returning-code-h" class="card">
<h2 id="returning-code-h">${ctx.t('returningCodeHeading')}</h2>
<p>${ctx.t('returningCodeIntro')}</p>
<form method="post" action="${`${v.base}/email/sign-in`}">${csrfField(ctx)}<button type="submit">${ctx.t('returningCodeButton')}</button></form>
</section>
<section aria-labelledby="returning-new-h" class="card">
<h2 id="returning-new-h">${ctx.t('returningNewHeading')}</h2>
<p>${ctx.t('returningNewIntro')}</p>
${passkeyButton(ctx, v.base, 'register', ctx.t('returningNewButton'))}
</section>
${otherAddress(ctx, v.base)}`;
}

export function signInView<K extends string = never>(
  ctx: PageContext<MessageKey | K>,
  v: {
    base: string;
    pendingEmail?: string;
    verifiedEmail?: string;
    /** The verified address already has an account: the returning person's page instead of "Create your passkey". */
    returning?: boolean;
    notice?: Notice<MessageKey | K>;
    /**
     * The sign-in is handed to wherever it started (connect's STATUS_POLL or REVEAL, the device host): warn before
     * signing in, once, on the flow's first page (not again on the code and passkey steps that follow).
     */
    warnOriginator?: boolean;
    /** The sign-up form's address to start with (a checked email address). */
    emailHint?: string;
  },
): SafeHtml {
  const app = ctx.appName ?? '';
  if (v.verifiedEmail && v.returning)
    return returningView(ctx, { base: v.base, email: v.verifiedEmail, notice: v.notice });
  if (v.verifiedEmail) {
    return html`<h1>${ctx.t('registerHeading')}</h1>${noticeBlock(ctx, v.notice)}
<p>${ctx.t('registerIntro', { email: v.verifiedEmail })}</p>
${passkeyButton(ctx, v.base, 'register', ctx.t('registerButton'))}
${otherAddress(ctx, v.base)}`;
  }
  return html`<h1>${ctx.t('signInTo', { app })}</h1>
${noticeBlock(ctx, v.notice)}
${originatorWarning(ctx, v.warnOriginator && !v.pendingEmail)}
<p>${ctx.t('intro', { app })}</p>
<section aria-labelledby="passkey-h" class="card">
<h2 id="passkey-h">${ctx.t('passkeyHeading')}</h2>
${passkeyButton(ctx, v.base, 'authenticate', ctx.t('passkeyButton'))}
</section>
<section aria-labelledby="${v.pendingEmail ? 'code-h' : 'signup-h'}" class="card">
${
  v.pendingEmail
    ? emailCodeForm(ctx, v.base, v.pendingEmail)
    : html`<h2 id="signup-h">${ctx.t('signupHeading')}</h2>
<form method="post" action="${`${v.base}/email`}" class="stack">
${csrfField(ctx)}
<label for="email">${ctx.t('emailLabel')}</label>
<input id="email" name="email" type="email" autocomplete="username webauthn" maxlength="254" required value="${v.emailHint ?? ''}" data-passkey-autofill data-options-url="${`${v.base}/passkey/authentication-options`}" data-verify-url="${`${v.base}/passkey/authentication`}">
<button type="submit">${ctx.t('emailButton')}</button>
</form>`
}
</section>`;
}

export { csrfField };
