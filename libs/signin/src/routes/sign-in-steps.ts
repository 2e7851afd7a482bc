// The sign-in steps every host shows before its own final step: sign in with a passkey or sign up by emailed code
// then passkey, accept the basic terms when owed, decide per claim and fill in REQUIRED data. `signInStepRoutes`
// are the form and passkey endpoints under the target's page path; `nextStep` renders the page owed (GET).
import {
  type AccountProfile,
  type CurrentTerms,
  emailDomainOf,
  emailDomainPolicyOf,
  recordReceipt,
} from '@svc/issuance';
import { formBody } from '@svc/platform';
import type { ClaimView } from '@svc/token-core';
import { type Response, Router } from 'express';
import { normalizeEmail } from '../domain/email-codes';
import { accountAndView, consentItems, termsOwed } from '../domain/page-steps';
import { signInView } from '../pages/sign-in';
import { type DetailItem, detailsView, messageView, termsView } from '../pages/steps';
import type { Site } from '../site';
import { appOf, type Browser, csrfValid, PageError, readForm, sendPage } from './browser';
import { enterCode, mailCode } from './code-entry';
import { submitDetails } from './details-form';
import { codeForm, emailForm, plainForm, termsForm } from './page-schemas';
import { type LoadPage, passkeySignInRoutes, passkeySignUpRoutes } from './passkey-routes';

/** Who passed every step: the host's final step acts for this account. */
export interface SignedIn {
  account: AccountProfile;
  view: ClaimView;
  /** When the person proved themselves in this flow. */
  authTime: Date;
  /** How (RFC 8176 values, domain/auth-references.ts); empty for a flow recorded before these were kept. */
  amr: string[];
  acr?: string;
}

/**
 * Mounted by the host at its page path (`router.use('/inquiries/:exposureKey', ...)`): /email, /email/code,
 * /email/reset, /sign-out, /terms, /details and the passkey endpoints. Every post checks the flow's CSRF token.
 */
export function signInStepRoutes<K extends string>(site: Site<K>, load: LoadPage<K>): Router {
  const { deps } = site;
  const router = Router({ mergeParams: true });
  const form = formBody();

  async function loadForPost(req: Parameters<LoadPage<K>>[0], res: Response): Promise<Browser<K>> {
    const b = await load(req, res);
    if (!csrfValid(site, req, b.flow)) throw new PageError(403, 'sessionExpired');
    return b;
  }
  const back = async (b: Browser<K>, res: Response) => {
    await b.save();
    res.redirect(303, b.target.base);
  };

  router.post('/email', form, async (req, res) => {
    const b = await loadForPost(req, res);
    const email = normalizeEmail(readForm(emailForm, req).email);
    if (!email) b.flash('emailInvalid');
    else if (b.target.admitsEmail && !b.target.admitsEmail(email)) {
      b.flash('emailNotAllowed', { app: b.ctx.appName ?? '' });
    } else if ((await emailDomainPolicyOf(deps.db, email)) === 'BLOCK') {
      // A blocked domain cannot sign up (CONTRACTS "Email-domain policy"): no code is mailed, and the page says why.
      b.flash('emailDomainBlocked', { domain: emailDomainOf(email) ?? '' });
    } else {
      await mailCode(site, b, req, email);
    }
    await back(b, res);
  });

  router.post('/email/code', form, async (req, res) => {
    const b = await loadForPost(req, res);
    const { code } = readForm(codeForm, req);
    const proven = await enterCode(site, b, req, code);
    if (proven) b.flow.verifiedEmail = proven;
    await back(b, res);
  });

  router.post('/email/reset', form, async (req, res) => {
    const b = await loadForPost(req, res);
    readForm(plainForm, req);
    delete b.flow.pendingEmail;
    delete b.flow.verifiedEmail;
    await b.codes.drop();
    await back(b, res);
  });

  router.post('/sign-out', form, async (req, res) => {
    const b = await loadForPost(req, res);
    readForm(plainForm, req);
    // Signing out is a change of privilege too.
    await b.rotate();
    delete b.flow.accountId;
    delete b.flow.authTime;
    delete b.flow.amr;
    delete b.flow.acr;
    await back(b, res);
  });

  router.post('/terms', form, async (req, res) => {
    const b = await loadForPost(req, res);
    const form = readForm(termsForm, req);
    if (b.flow.accountId) {
      const terms = await termsOwed(deps.issuance, b.flow.accountId);
      if (terms && form.accept === 'yes' && Number(form.revision) === terms.revision) {
        const locale = form.locale === 'zh-CN' ? 'zh-CN' : 'en-US';
        await recordReceipt(deps.db, b.flow.accountId, terms, site.receiptChannel, {
          locale,
          contentSha256: terms.agreement.locales[locale].contentSha256,
        });
      } else if (terms) b.flash('termsRequired');
    }
    await back(b, res);
  });

  router.post('/details', form, async (req, res) => {
    const b = await loadForPost(req, res);
    readForm(plainForm, req);
    const accountId = b.flow.accountId;
    const found = accountId ? await accountAndView(deps.issuance, appOf(b.target), accountId) : undefined;
    if (found && accountId)
      await submitDetails(site, b, req, accountId, consentItems(found.view, found.account));
    await back(b, res);
  });

  router.use(passkeySignInRoutes(site, load), passkeySignUpRoutes(site, load));
  return router;
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
  if (!b.flow.accountId) return { step: 'signIn' };
  const found = await accountAndView(deps.issuance, appOf(b.target), b.flow.accountId);
  if (found?.account.status !== 'ACTIVE') return { step: 'accountUnavailable' };
  const { account, view } = found;
  if (b.target.admitsEmail && !b.target.admitsEmail(account.email)) return { step: 'constraintMismatch' };
  const terms = await termsOwed(deps.issuance, account.id);
  if (terms) return { step: 'terms', terms };
  const items = consentItems(view, account);
  if (items.length) return { step: 'details', items };
  return {
    step: 'done',
    signedIn: {
      account,
      view,
      authTime: new Date(b.flow.authTime ?? deps.now().getTime()),
      amr: b.flow.amr ?? [],
      acr: b.flow.acr,
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
      sendPage(res, b, ctx.t('errorHeading'), msg, 403);
      return undefined;
    }
    case 'constraintMismatch': {
      const msg = messageView(
        ctx,
        'errorHeading',
        { key: 'constraintMismatch', vars: { app: ctx.appName ?? '' } },
        anotherAccount,
      );
      sendPage(res, b, ctx.t('errorHeading'), msg, 403);
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
