// The sign-in steps every host shows before its own final step: sign in with a passkey or sign up by emailed code
// then passkey, accept the basic terms when owed, decide per claim and fill in REQUIRED data.
// `signInStepEndpoints` declares the form and passkey endpoints at the literal paths a host's table names;
// `nextStep` renders the page owed (GET).
import type { Endpoint } from '@svc/platform';
import type { Response } from 'express';
import { normalizeEmail } from '../domain/email-codes';
import { forgetSignIn } from '../domain/flows';
import {
  acceptTerms,
  consentItemsFor,
  emailCodeSignIn,
  hasAccount,
  type OwedStep,
  owedStepOf,
  type SignedIn,
  signUpAddress,
} from '../domain/sign-in-steps';
import { signInView } from '../pages/sign-in';
import { detailsView, messageView, termsView } from '../pages/steps';
import type { Site } from '../site';
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

/** The literal paths of the form steps under one page path, e.g. `/device/email`. */
export interface FormStepPaths {
  email: `/${string}/email`;
  code: `/${string}/email/code`;
  reset: `/${string}/email/reset`;
  /** A new code to the pending address (the one before stops working). */
  resend: `/${string}/email/resend`;
  /** Sign-in by the code alone, for a proven address that already has an account. */
  codeSignIn: `/${string}/email/sign-in`;
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
  resend: '/email/resend',
  codeSignIn: '/email/sign-in',
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
  const page = browserKit(site, load);

  return [
    page.form(paths.email, emailForm, async (b, req) => {
      const address = await signUpAddress(site.ports, req.body.email, b.target.admitsEmail);
      if ('email' in address) await mailCode(site, b, req, address.email);
      else if (address.refused === 'emailNotAllowed') b.flash(address.refused, { app: b.ctx.appName ?? '' });
      else if (address.refused === 'emailDomainBlocked') b.flash(address.refused, { domain: address.domain });
      else b.flash(address.refused);
    }),
    page.form(paths.code, codeForm, async (b, req) => {
      const proven = await enterCode(site, b, req, req.body.code);
      if (proven) b.flow.verifiedEmail = proven;
    }),
    page.form(paths.resend, plainForm, async (b, req) => {
      const email = b.flow.pendingEmail;
      if (email && (await mailCode(site, b, req, email, true))) b.flash('codeResent', { email });
    }),
    page.form(paths.codeSignIn, plainForm, async (b) => {
      const email = b.flow.verifiedEmail;
      if (!email) return;
      const proven = await emailCodeSignIn(site.ports, email, b.target.accountId, site.deps.clock());
      if (!proven) return void b.flash('accountUnavailable');
      // Signed in: a fresh flow identifier, as at a passkey sign-in.
      await b.rotate();
      delete b.flow.verifiedEmail;
      Object.assign(b.flow, proven);
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
      if (!b.flow.accountId) return;
      const accepted = await acceptTerms(site.ports, b.flow.accountId, req.body, site.receiptChannel);
      if (accepted === 'required') b.flash('termsRequired');
    }),
    page.form(paths.details, detailsForm, async (b, req) => {
      const accountId = b.flow.accountId;
      const items = accountId ? await consentItemsFor(site.ports, appOf(b.target), accountId) : undefined;
      if (items && accountId) await submitDetails(site, b, req, accountId, items);
    }),
    ...passkeySignInEndpoints(site, load, paths),
    ...passkeySignUpEndpoints(site, load, paths),
  ];
}

/** Decides the step owed without rendering (a host's own post checks that every step has passed). */
export function owedStep<K extends string>(site: Site<K>, b: Browser<K>): Promise<OwedStep> {
  const target = { app: () => appOf(b.target), admitsEmail: b.target.admitsEmail };
  return owedStepOf(site.ports, target, b.flow, site.deps.clock());
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
        returning: !!b.flow.verifiedEmail && (await hasAccount(site.ports, b.flow.verifiedEmail)),
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
