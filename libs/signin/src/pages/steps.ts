// Step pages after sign-in: basic terms, consent and missing data per claim, and plain message pages.
import type { AgreementDocumentBody } from '@svc/issuance';
import type { ClaimKey, Requirement } from '@svc/token-core';
import { html, type SafeHtml } from './html';
import type { MessageKey } from './i18n';
import type { PageContext } from './layout';
import { csrfField, type Notice, noticeBlock } from './sign-in';

export function termsDocument(doc: AgreementDocumentBody): SafeHtml {
  return html`<article class="terms" tabindex="0" aria-label="${doc.title}">
<h2>${doc.title}</h2>
${doc.sections.map(
  (s) =>
    html`<section><h3>${s.heading}</h3>${s.paragraphs.map((p) => html`<p>${p}</p>`)}${
      s.link
        ? html`<p><a href="${safeHref(s.link.url)}" rel="noopener noreferrer">${s.link.label}</a></p>`
        : ''
    }</section>`,
)}
</article>`;
}

/** Only http(s) links are rendered as links: a javascript: URL in a document must not become clickable. */
function safeHref(url: string): string {
  return /^https?:\/\//i.test(url) ? url : '#';
}

export function termsView<K extends string = never>(
  ctx: PageContext<MessageKey | K>,
  v: {
    action: string;
    revision: number;
    contentSha256: string;
    document: AgreementDocumentBody;
    notice?: Notice<MessageKey | K>;
  },
): SafeHtml {
  return html`<h1>${ctx.t('termsHeading')}</h1>
${noticeBlock(ctx, v.notice)}
<p>${ctx.t('termsIntro', { revision: v.revision })}</p>
${termsDocument(v.document)}
<form method="post" action="${v.action}" class="stack">
${csrfField(ctx)}
<input type="hidden" name="revision" value="${v.revision}">
<input type="hidden" name="contentSha256" value="${v.contentSha256}">
<input type="hidden" name="locale" value="${ctx.locale}">
<label class="check"><input type="checkbox" name="accept" value="yes" required> ${ctx.t('termsAccept')}</label>
<button type="submit" class="primary">${ctx.t('termsButton')}</button>
</form>`;
}

export interface DetailItem {
  key: ClaimKey;
  requirement: Requirement;
  state: 'UNKNOWN' | 'GRANTED' | 'DENIED';
  value: string | null;
  /** The person may type a value here (every claim but the verified email address). */
  editable: boolean;
}

export function detailsView<K extends string = never>(
  ctx: PageContext<MessageKey | K>,
  v: {
    action: string;
    items: DetailItem[];
    notice?: Notice<MessageKey | K>;
    /** A further statement the person agrees to by saving (the OIDC host's offline access). */
    also?: Notice<MessageKey | K>;
  },
): SafeHtml {
  const app = ctx.appName ?? '';
  return html`<h1>${ctx.t('detailsHeading', { app })}</h1>
${noticeBlock(ctx, v.notice)}
<p>${ctx.t('detailsIntro', { app })}</p>
${v.also ? html`<p>${ctx.t(v.also.key, v.also.vars)}</p>` : ''}
<form method="post" action="${v.action}" class="stack">
${csrfField(ctx)}
${v.items.map((item) => {
  const name = ctx.t(`claim_${item.key}` as MessageKey);
  const req = item.requirement === 'REQUIRED' ? ctx.t('required') : ctx.t('optional');
  return html`<fieldset class="claim">
<legend>${name} <span class="tag">${req}</span></legend>
<div class="choices">
<label><input type="radio" name="${`consent_${item.key}`}" value="GRANTED" required${item.state === 'GRANTED' ? html` checked` : ''}> ${ctx.t('share')}</label>
<label><input type="radio" name="${`consent_${item.key}`}" value="DENIED" required${item.state === 'DENIED' ? html` checked` : ''}> ${ctx.t('dontShare')}</label>
</div>
${
  item.editable
    ? html`<label for="${`value_${item.key}`}" class="sub">${name}</label>
<input id="${`value_${item.key}`}" name="${`value_${item.key}`}" value="${item.value ?? ''}" maxlength="${item.key.endsWith('Avatar') ? 2048 : 100}"${item.key.endsWith('Avatar') ? html` type="url"` : html` type="text"`}>`
    : html`<p class="sub">${ctx.t('currentValue', { value: item.value ?? ctx.t('noValue') })}</p>`
}
</fieldset>`;
})}
<button type="submit" class="primary">${ctx.t('detailsButton')}</button>
</form>`;
}

export function messageView<K extends string = MessageKey>(
  ctx: PageContext<K>,
  heading: K,
  message: Notice<K>,
  action?: { url: string; label: K },
): SafeHtml {
  return html`<h1>${ctx.t(heading)}</h1>
<p>${ctx.t(message.key, message.vars)}</p>
${action ? html`<form method="post" action="${action.url}">${csrfField(ctx)}<button type="submit">${ctx.t(action.label)}</button></form>` : ''}`;
}
