// The approval page's own views: code entry, the confirmation screen (always shown before a decision: the
// application, the user code to compare, the device's address and software, a plain warning, Approve and Deny),
// and the outcome. Every value is escaped by the `html` tag.
import {
  csrfField,
  html,
  type MessageKey,
  type Notice,
  noticeBlock,
  type PageContext,
  type SafeHtml,
} from '@svc/signin';
import type { PendingAuthorization } from '../domain/approval';
import type { DeviceKey } from './i18n-device';

export type DeviceContext = PageContext<MessageKey | DeviceKey>;
export type DeviceNotice = Notice<MessageKey | DeviceKey>;

export function entryView(ctx: DeviceContext, v: { typed: string; notice?: DeviceNotice }): SafeHtml {
  return html`<h1>${ctx.t('entryHeading')}</h1>
${noticeBlock(ctx, v.notice)}
<p>${ctx.t('entryIntro')}</p>
<form method="post" action="/device" class="stack">
${csrfField(ctx)}
<label for="user-code">${ctx.t('entryLabel')}</label>
<input id="user-code" name="code" value="${v.typed}" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus aria-describedby="user-code-help" class="user-code">
<p id="user-code-help" class="sub">${ctx.t('entryHelp')}</p>
<button type="submit" class="primary">${ctx.t('entryButton')}</button>
</form>`;
}

export function confirmView(
  ctx: DeviceContext,
  v: { authorization: PendingAuthorization; email: string | null; notice?: DeviceNotice },
): SafeHtml {
  const app = ctx.appName ?? '';
  const a = v.authorization;
  // Approve and Deny name the authorization shown here: a code entered meanwhile in another tab of this browser
  // changes the flow's selection, and a decision must not land on a request the person never saw.
  const shown = html`<input type="hidden" name="authorization" value="${a.id}">`;
  return html`<h1>${ctx.t('confirmHeading')}</h1>
${noticeBlock(ctx, v.notice)}
<p>${ctx.t('confirmIntro', { app })}</p>
<dl class="device">
<dt>${ctx.t('confirmCode')}</dt><dd><strong class="user-code" data-user-code>${a.userCode}</strong><br><span class="sub">${ctx.t('confirmCodeHelp')}</span></dd>
<dt>${ctx.t('confirmAddress')}</dt><dd data-device-address>${a.deviceAddress || ctx.t('confirmUnknown')}</dd>
<dt>${ctx.t('confirmAgent')}</dt><dd data-device-agent>${a.deviceUserAgent || ctx.t('confirmUnknown')}</dd>
</dl>
<section class="warning" role="note" aria-labelledby="device-warning-h">
<h2 id="device-warning-h">${ctx.t('confirmWarningHeading')}</h2>
<p>${ctx.t('confirmWarning', { app })}</p>
</section>
<div class="row">
<form method="post" action="/device/approve">${csrfField(ctx)}${shown}<button type="submit" class="primary">${ctx.t('approveButton')}</button></form>
<form method="post" action="/device/deny">${csrfField(ctx)}${shown}<button type="submit" class="danger">${ctx.t('denyButton')}</button></form>
</div>
<p class="sub">${ctx.t('confirmSignedInAs', { email: v.email ?? '' })}</p>
<div class="row">
<form method="post" action="/device/sign-out">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('useAnother')}</button></form>
<form method="post" action="/device/cancel">${csrfField(ctx)}<button type="submit" class="link">${ctx.t('otherCode')}</button></form>
</div>`;
}

/**
 * The outcome of a decision (or of a request that went away meanwhile), with the way to enter another code; its
 * heading names the application as the pages before it did (the notice's `app`).
 */
export function outcomeView(ctx: DeviceContext, heading: DeviceKey, notice: DeviceNotice): SafeHtml {
  return html`<h1>${ctx.t(heading, notice.vars)}</h1>
<p>${ctx.t(notice.key, notice.vars)}</p>
<p><a href="/device">${ctx.t('anotherCode')}</a></p>`;
}
