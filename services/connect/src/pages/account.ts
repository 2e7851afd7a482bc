// The account page's views: sign-in with a passkey, then applications by sector (consent per claim, identifier
// reset with its warning), passkeys (rename, remove unless the last, add) and sign out. Every value is escaped.

import { html, localizedName, type PageContext, type SafeHtml } from '@svc/signin';
import type {
  AccountOverview,
  AppEntry,
  ClaimChoice,
  PasskeyEntry,
  SectorEntry,
} from '../domain/account-page';
import { type AccountTranslate, CLAIM_NAMES, formatWhen } from './i18n-account';

export interface AccountPageContext extends PageContext {
  a: AccountTranslate;
}

export interface AccountNotice {
  text: string;
}

function notice(n: AccountNotice | undefined): SafeHtml | string {
  return n ? html`<p class="notice" role="alert">${n.text}</p>` : '';
}

function csrf(ctx: AccountPageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}">`;
}

function passkeyButton(ctx: AccountPageContext, kind: 'authenticate' | 'register', label: string): SafeHtml {
  const step = kind === 'authenticate' ? 'authentication' : 'registration';
  return html`<button type="button" class="primary" data-passkey="${kind}"
  data-options-url="${`/account/passkey/${step}-options`}" data-verify-url="${`/account/passkey/${step}`}"
  data-error="${ctx.a('passkeyError')}" disabled>${label}</button>
<p class="status" role="status" aria-live="polite" data-passkey-status></p>
<noscript><p class="notice">${ctx.a('jsRequired')}</p></noscript>`;
}

export function accountSignInView(ctx: AccountPageContext, n?: AccountNotice): SafeHtml {
  return html`<h1>${ctx.a('signInHeading')}</h1>
${notice(n)}
<p>${ctx.a('signInIntro')}</p>
<div>${passkeyButton(ctx, 'authenticate', ctx.a('signInButton'))}</div>
<p class="sub help">${ctx.a('signInHelp')}</p>`;
}

const appName = (ctx: AccountPageContext, app: AppEntry) =>
  localizedName(app.names, app.defaultLocale, ctx.locale);

function requirementTag(ctx: AccountPageContext, c: ClaimChoice): string {
  if (c.requirement === 'REQUIRED') return ctx.a('required');
  return c.requirement === 'SYNTHETIC_FALLBACK' ? ctx.a('fallback') : ctx.a('optional');
}

function consentForm(ctx: AccountPageContext, app: AppEntry): SafeHtml {
  const name = appName(ctx, app);
  if (app.claims.length === 0)
    return html`<div class="app"><h4>${name}</h4><p class="sub">${ctx.a('noClaims', { app: name })}</p></div>`;
  const hasRequired = app.claims.some((c) => c.requirement === 'REQUIRED');
  return html`<form method="post" action="${`/account/applications/${app.anchor}/consent`}" class="app stack">
${csrf(ctx)}
<h4>${name}</h4>
<p class="sub">${ctx.a('consentIntro', { app: name })}</p>
${app.claims.map(
  (c) => html`<fieldset class="claim">
<legend>${CLAIM_NAMES[ctx.locale][c.key]} <span class="tag">${requirementTag(ctx, c)}</span></legend>
<div class="choices">
<label><input type="radio" name="${`consent_${c.key}`}" value="GRANTED"${c.state === 'GRANTED' ? html` checked` : ''}> ${ctx.a('share')}</label>
<label><input type="radio" name="${`consent_${c.key}`}" value="DENIED"${c.state === 'DENIED' ? html` checked` : ''}> ${ctx.a('dontShare')}</label>
${c.state === 'UNKNOWN' ? html`<span class="sub">${ctx.a('undecided')}</span>` : ''}
</div>
</fieldset>`,
)}
${hasRequired ? html`<p class="sub">${ctx.a('requiredNote', { app: name })}</p>` : ''}
<div><button type="submit">${ctx.a('consentSave', { app: name })}</button></div>
</form>`;
}

function sectorBlock(ctx: AccountPageContext, sector: SectorEntry): SafeHtml {
  const names = sector.apps.map((app) => appName(ctx, app));
  return html`<section class="sector" aria-labelledby="${`sector-${sector.id}`}">
<h3 id="${`sector-${sector.id}`}">${sector.name}</h3>
<p class="sub">${ctx.a('sectorIntro', { apps: names.join(ctx.locale === 'zh-CN' ? '、' : ', ') })}</p>
${sector.apps.map((app) => consentForm(ctx, app))}
<form method="post" action="${`/account/sectors/${sector.id}/reset`}" class="reset stack">
${csrf(ctx)}
<h4>${ctx.a('resetHeading')}</h4>
<p class="warning">${ctx.a('resetWarning')}</p>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> ${ctx.a('resetConfirm')}</label>
<div><button type="submit" class="danger">${ctx.a('resetButton')}</button></div>
</form>
</section>`;
}

/** Remove is offered only after a recent sign-in (the confirm button below the list comes first otherwise). */
function passkeyItem(ctx: AccountPageContext, p: PasskeyEntry, only: boolean, recent: boolean): SafeHtml {
  const label = p.name ?? ctx.a('passkeyUnnamed');
  const used = p.lastUsedAt
    ? ctx.a('passkeyLastUsed', { date: formatWhen(ctx.locale, p.lastUsedAt) })
    : ctx.a('passkeyNeverUsed');
  return html`<li class="passkey">
<p class="passkey-name"><strong>${label}</strong></p>
<p class="sub">${ctx.a('passkeyAdded', { date: formatWhen(ctx.locale, p.createdAt) })} · ${used}</p>
<form method="post" action="${`/account/passkeys/${p.id}/rename`}" class="rename">
${csrf(ctx)}
<label for="${`name-${p.id}`}" class="sub">${ctx.a('renameLabel')}</label>
<div class="row"><input id="${`name-${p.id}`}" name="name" type="text" value="${label}" maxlength="64" required>
<button type="submit">${ctx.a('renameButton')}</button></div>
</form>
${
  only
    ? html`<p class="sub">${ctx.a('removeOnlyOne')}</p>`
    : !recent
      ? ''
      : html`<form method="post" action="${`/account/passkeys/${p.id}/remove`}">${csrf(ctx)}<button type="submit" class="danger" aria-label="${`${ctx.a('removeButton')}: ${label}`}">${ctx.a('removeButton')}</button></form>`
}
</li>`;
}

export function accountView(ctx: AccountPageContext, v: AccountOverview, n?: AccountNotice): SafeHtml {
  return html`<h1>${ctx.a('heading')}</h1>
${notice(n)}
<div class="who"><p>${ctx.a('signedInAs', { email: v.email ?? '' })}</p>
<form method="post" action="/account/sign-out">${csrf(ctx)}<button type="submit">${ctx.a('signOut')}</button></form></div>
<section aria-labelledby="apps-h" class="card">
<h2 id="apps-h">${ctx.a('appsHeading')}</h2>
${v.sectors.length ? v.sectors.map((s) => sectorBlock(ctx, s)) : html`<p>${ctx.a('appsNone')}</p>`}
</section>
<section aria-labelledby="passkeys-h" class="card">
<h2 id="passkeys-h">${ctx.a('passkeysHeading')}</h2>
<p>${ctx.a('passkeysIntro')}</p>
<ul class="passkeys">${v.passkeys.map((p) => passkeyItem(ctx, p, v.passkeys.length <= 1, v.recentSignIn))}</ul>
${
  v.recentSignIn
    ? html`<h3>${ctx.a('addHeading')}</h3>
<p>${ctx.a('addIntro')}</p>
<div>${passkeyButton(ctx, 'register', ctx.a('addButton'))}</div>`
    : html`<p>${ctx.a('confirmIntro')}</p>
<div>${passkeyButton(ctx, 'authenticate', ctx.a('confirmButton'))}</div>`
}
</section>`;
}
