// The sign-in steps every host shows before its own final step: sign in with a passkey or sign up by emailed code
// then passkey, accept the basic terms when owed, decide per claim and fill in REQUIRED data.
// `signInStepEndpoints` declares the form and passkey endpoints at the literal paths a host's table names;
// `nextStep` renders the page owed (GET).
import {
  type AccountProfile,
  type CurrentTerms,
  emailDomainOf,
  emailDomainPolicyOf,
  type HeldAuthority,
  recordReceipt,
} from '@svc/issuance';
import type { Endpoint } from '@svc/platform';
import type { ClaimView } from '@svc/token-core';
import type { Response } from 'express';
import { normalizeEmail } from '../domain/email-codes';
import { accountAndView, consentItems, termsOwed } from '../domain/page-steps';
import { signInView } from '../pages/sign-in';
import { type DetailItem, detailsView, messageView, termsView } from '../pages/steps';
import type { Site } from '../site';
import { forgetSignIn } from '../store/flows';
import { appOf, type Browser, pageStatusOf, sendPage } from './browser';
import { enterCode, mailCode } from './code-entry';
import { submitDetails } from './details-form';
import { browserKit } from './page-kit';
import { codeForm, detailsForm, emailForm, plainForm, termsForm } from './page-schemas';
import {
  type LoadPage,
  type PasskeySignInPaths,
  type PasskeySignUpPaths,
  passkeySignInEndpoints,
  passkeySignUpEndpoints,
} from './passkey-routes';

/** Who passed every step: the host's final step acts for this account. */
export interface SignedIn {
  account: AccountProfile;
  view: ClaimView;
  /** When the person proved themselves in this flow. */
  authTime: Date;
  /** How (RFC 8176 values, domain/auth-references.ts); empty for a flow recorded before these were kept. */
  amr: string[];
  acr?: string;
  /**
   * The account's authority when the person proved themselves (not the account's current one): what the host's
   * final step records, so an issuance after a change of authority is refused in SQL.
   */
  authority: HeldAuthority;
}

/** The literal paths of the form steps under one page path, e.g. `/device/email`. */
export interface FormStepPaths {
  email: `/${string}/email`;
  code: `/${string}/email/code`;
  reset: `/${string}/email/reset`;
  signOut: `/${string}/sign-out`;
  terms: `/${string}/terms`;
  details: `/${string}/details`;
}

/** Every step endpoint under one page path: the forms, passkey sign-in and passkey sign-up. */
export type StepPaths = FormStepPaths & PasskeySignInPaths & PasskeySignUpPaths;

const SUFFIXES: Record<keyof StepPaths, string> = {
  email: '/email',
  code: '/email/code',
  reset: '/email/reset',
  signOut: '/sign-out',
  terms: '/terms',
  details: '/details',
  authenticationOptions: '/passkey/authentication-options',
  authentication: '/passkey/authentication',
  registrationOptions: '/passkey/registration-options',
  registration: '/passkey/registration',
};

/**
 * The pages link and post to `${target.base}<suffix>`, so the paths a host declares must share one page path:
 * checked once, when the host builds its table.
 */
export function checkStepPaths(paths: Partial<StepPaths>): void {
  const entries = Object.entries(paths) as [keyof StepPaths, string][];
  const [first] = entries;
  if (!first) return;
  const base = first[1].slice(0, first[1].length - SUFFIXES[first[0]].length);
  for (const [name, path] of entries) {
    if (path !== `${base}${SUFFIXES[name]}`)
      throw new Error(`sign-in step ${name}: ${path} is not under ${base}`);
  }
}

/**
 * The sign-in step endpoints of one page path, at the literal paths the host's table names: /email,
 * /email/code, /email/reset, /sign-out, /terms, /details and the passkey calls. Every post checks the flow's
 * CSRF token (in `open`, before its form's schema, as each step always has).
 */
export function signInStepEndpoints<K extends string>(
  site: Site<K>,
  load: LoadPage<K>,
  paths: StepPaths,
): Endpoint[] {
  checkStepPaths(paths);
  const { deps } = site;
  const page = browserKit(site, load);

  return [
    page.form(paths.email, emailForm, async (b, req) => {
      const email = normalizeEmail(req.body.email);
      if (!email) b.flash('emailInvalid');
      else if (b.target.admitsEmail && !b.target.admitsEmail(email)) {
        b.flash('emailNotAllowed', { app: b.ctx.appName ?? '' });
      } else if ((await emailDomainPolicyOf(deps.db, email)) === 'BLOCK') {
        // A blocked domain cannot sign up (CONTRACTS "Email-domain policy"): no code is mailed, and the page says
        // why.
        b.flash('emailDomainBlocked', { domain: emailDomainOf(email) ?? '' });
      } else {
        await mailCode(site, b, req, email);
      }
    }),
    page.form(paths.code, codeForm, async (b, req) => {
      const proven = await enterCode(site, b, req, req.body.code);
      if (proven) b.flow.verifiedEmail = proven;
    }),
    page.form(paths.reset, plainForm, async (b) => {
      delete b.flow.pendingEmail;
      delete b.flow.verifiedEmail;
      await b.codes.drop();
    }),
    page.form(paths.signOut, plainForm, async (b) => {
      // Signing out is a change of privilege too.
      await b.rotate();
      forgetSignIn(b.flow);
    }),
    page.form(paths.terms, termsForm, async (b, req) => {
      const form = req.body;
      if (!b.flow.accountId) return;
      const terms = await termsOwed(deps.issuance.ports, b.flow.accountId);
      if (terms && form.accept === 'yes' && Number(form.revision) === terms.revision) {
        const locale = form.locale === 'zh-CN' ? 'zh-CN' : 'en-US';
        await recordReceipt(deps.db, b.flow.accountId, terms, site.receiptChannel, {
          locale,
          contentSha256: terms.agreement.locales[locale].contentSha256,
        });
      } else if (terms) b.flash('termsRequired');
    }),
    page.form(paths.details, detailsForm, async (b, req) => {
      const accountId = b.flow.accountId;
      const found = accountId
        ? await accountAndView(deps.issuance.ports, appOf(b.target), accountId)
        : undefined;
      if (found && accountId)
        await submitDetails(site, b, req, accountId, consentItems(found.view, found.account));
    }),
    ...passkeySignInEndpoints(site, load, paths),
    ...passkeySignUpEndpoints(site, load, paths),
  ];
}

/** The first step still owed on a target, or `done` with the signed-in account for the host's final step. */
export type OwedStep =
  | { step: 'signIn' }
  | { step: 'accountUnavailable' }
  | { step: 'constraintMismatch' }
  | { step: 'terms'; terms: CurrentTerms }
  | { step: 'details'; items: DetailItem[] }
  | { step: 'done'; signedIn: SignedIn };

/** Decides the step owed without rendering (a host's own post checks that every step has passed). */
export async function owedStep<K extends string>(site: Site<K>, b: Browser<K>): Promise<OwedStep> {
  const { deps } = site;
  if (!b.flow.accountId || !b.flow.authority) return { step: 'signIn' };
  const found = await accountAndView(deps.issuance.ports, appOf(b.target), b.flow.accountId);
  if (found?.account.status !== 'ACTIVE') return { step: 'accountUnavailable' };
  const { account, view } = found;
  if (b.target.admitsEmail && !b.target.admitsEmail(account.email)) return { step: 'constraintMismatch' };
  const terms = await termsOwed(deps.issuance.ports, account.id);
  if (terms) return { step: 'terms', terms };
  const items = consentItems(view, account);
  if (items.length) return { step: 'details', items };
  return {
    step: 'done',
    signedIn: {
      account,
      view,
      authTime: new Date(b.flow.authTime ?? deps.clock()),
      amr: b.flow.amr ?? [],
      acr: b.flow.acr,
      authority: b.flow.authority,
    },
  };
}

/**
 * The GET of a target's page: sends the page of the first step still owed (sign-in, a refusal of the account,
 * the basic terms, consent and data) and returns undefined; once every step has passed, sends nothing and returns
 * the signed-in account for the host's final step. The flow record is saved either way.
 */
export async function nextStep<K extends string>(
  site: Site<K>,
  b: Browser<K>,
  res: Response,
): Promise<SignedIn | undefined> {
  const { ctx, target } = b;
  const notice = b.takeNotice();
  await b.save();
  const owed = await owedStep(site, b);
  const anotherAccount = { url: `${target.base}/sign-out`, label: 'useAnother' as const };
  switch (owed.step) {
    case 'done':
      return owed.signedIn;
    case 'signIn': {
      const view = signInView(ctx, {
        base: target.base,
        pendingEmail: b.flow.pendingEmail,
        verifiedEmail: b.flow.verifiedEmail,
        notice,
        warnOriginator: target.warnOriginator,
        emailHint: target.emailHint === undefined ? undefined : normalizeEmail(target.emailHint),
      });
      sendPage(res, b, ctx.t('title'), view, 200, true);
      return undefined;
    }
    case 'accountUnavailable': {
      const msg = messageView(ctx, 'errorHeading', { key: 'accountUnavailable' }, anotherAccount);
      sendPage(res, b, ctx.t('errorHeading'), msg, pageStatusOf(site, 'accountUnavailable'));
      return undefined;
    }
    case 'constraintMismatch': {
      const msg = messageView(
        ctx,
        'errorHeading',
        { key: 'constraintMismatch', vars: { app: ctx.appName ?? '' } },
        anotherAccount,
      );
      sendPage(res, b, ctx.t('errorHeading'), msg, pageStatusOf(site, 'constraintMismatch'));
      return undefined;
    }
    case 'terms': {
      const entry = owed.terms.agreement.locales[b.locale];
      const page = termsView(ctx, {
        action: `${target.base}/terms`,
        revision: owed.terms.revision,
        contentSha256: entry.contentSha256,
        document: entry.document,
        notice,
      });
      sendPage(res, b, ctx.t('termsHeading'), page);
      return undefined;
    }
    case 'details': {
      const page = detailsView(ctx, { action: `${target.base}/details`, items: owed.items, notice });
      sendPage(res, b, ctx.t('detailsHeading', { app: ctx.appName ?? '' }), page);
      return undefined;
    }
  }
}
