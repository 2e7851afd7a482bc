// connect's own page views around the shared sign-in steps: the inquiry's REVEAL return and the errand's
// re-authentication (its passkey, or an emailed code when it has none).
import {
  csrfField,
  emailCodeForm,
  html,
  type MessageKey,
  type Notice,
  noticeBlock,
  type PageContext,
  passkeyButton,
  type SafeHtml,
} from '@svc/signin';
import type { ConnectKey } from './i18n-connect';

export type ConnectContext = PageContext<MessageKey | ConnectKey>;

export function revealView(ctx: ConnectContext, confirmationKey: string): SafeHtml {
  const app = ctx.appName ?? '';
  return html`<h1>${ctx.t('revealHeading')}</h1>
<p>${ctx.t('revealIntro', { app })}</p>
<div class="reveal">
<input id="confirmation-key" readonly value="${confirmationKey}" aria-label="${ctx.t('revealHeading')}" spellcheck="false">
<button type="button" data-copy="confirmation-key" data-copied="${ctx.t('copied')}" disabled>${ctx.t('copy')}</button>
</div>`;
}

export function errandReauthView(
  ctx: ConnectContext,
  v: {
    base: string;
    hasPasskey: boolean;
    email: string;
    codeSent: boolean;
    notice?: Notice<MessageKey | ConnectKey>;
  },
): SafeHtml {
  const app = ctx.appName ?? '';
  const alternative = v.codeSent
    ? emailCodeForm(ctx, v.base, v.email, `${v.base}/email`)
    : html`<p>${ctx.t('reauthEmailIntro', { email: v.email })}</p>
<form method="post" action="${`${v.base}/email`}">${csrfField(ctx)}<button type="submit">${ctx.t('reauthEmailButton')}</button></form>`;
  return html`<h1>${ctx.t('reauthHeading')}</h1>
${noticeBlock(ctx, v.notice)}
<p>${ctx.t('reauthIntro', { app })}</p>
${v.hasPasskey ? passkeyButton(ctx, v.base, 'authenticate', ctx.t('passkeyButton')) : alternative}`;
}
