// The inquiry pages at /inquiries/{exposureKey}: sign in or sign up, accept the basic terms, decide per claim,
// then realize the inquiry and return (redirect to the callback, reveal the confirmation key, or wait for the poll).
import { emailDomainOf, emailDomainPolicyOf, loadApplication, recordReceipt } from '@svc/issuance';
import { formBody, type RateLimiter } from '@svc/platform';
import type { Request, Response, Router } from 'express';
import type { ConnectDeps } from '../deps';
import { buildCallbackRedirect } from '../domain/callback-url';
import { type CodeLimits, normalizeEmail } from '../domain/email-codes';
import { satisfiesRealizeConstraints } from '../domain/email-match';
import { openConfirmationKey, returnsToOriginator } from '../domain/inquiry-status';
import { sha256Hex } from '../domain/keys';
import { accountAndView, inquiryItems, termsOwed } from '../domain/page-steps';
import { realizeInquiry } from '../domain/realize';
import { inquirySignInView } from '../pages/sign-in';
import { detailsView, messageView, revealView, termsView } from '../pages/steps';
import type { AccountStore } from '../store/accounts';
import type { FlowStore } from '../store/flows';
import type { InquiryRow, InquiryStore } from '../store/inquiries';
import { type Browser, csrfValid, openBrowser, PageError, readForm, sendPage } from './browser';
import { enterCode, mailCode } from './code-entry';
import { submitDetails } from './details-form';
import { codeForm, emailForm, plainForm, termsForm } from './page-schemas';
import { passkeyRoutes } from './passkey-routes';

interface InquiryPage extends Browser {
  inquiry: InquiryRow;
  exposureKey: string;
}

export interface InquiryPageDeps {
  deps: ConnectDeps;
  inquiries: InquiryStore;
  flows: FlowStore;
  accounts: AccountStore;
  codeLimits: CodeLimits;
  signInLimit: RateLimiter;
}

const EXPOSURE_KEY = /^iqe_[A-Za-z0-9_-]{43}$/;

export function inquiryPages(router: Router, p: InquiryPageDeps): void {
  const { deps, inquiries, flows, accounts } = p;
  const form = formBody();

  async function load(req: Request, res: Response): Promise<InquiryPage> {
    const exposureKey = String(req.params.exposureKey);
    const inquiry = EXPOSURE_KEY.test(exposureKey)
      ? await inquiries.byExposureHash(sha256Hex(exposureKey))
      : undefined;
    if (!inquiry) throw new PageError(404, 'notFound');
    const app = await loadApplication(deps.db, { id: inquiry.applicationId });
    if (!app) throw new PageError(404, 'notFound');
    const callback = inquiry.constraints.callbackUrl;
    const b = await openBrowser(deps, flows, req, res, {
      key: `inquiry:${inquiry.id}`,
      base: `/inquiries/${exposureKey}`,
      app,
      formOrigins: callback ? [new URL(callback).origin] : [],
    });
    return Object.assign(b, { inquiry, exposureKey });
  }

  async function loadForPost(req: Request, res: Response): Promise<InquiryPage> {
    const b = await load(req, res);
    if (!csrfValid(deps, req, b.flow)) throw new PageError(403, 'sessionExpired');
    return b;
  }

  const back = async (b: InquiryPage, res: Response) => {
    await b.save();
    res.redirect(303, b.target.base);
  };

  /** The last step: where the person goes once the inquiry is realized. */
  function sendReturn(b: InquiryPage, res: Response): void {
    const { returnMethods, callbackUrl } = b.inquiry.constraints;
    const confirmationKey = openConfirmationKey(deps.issuance.kek, b.inquiry);
    if (!confirmationKey) throw new PageError(410, 'completed');
    if (returnMethods.includes('CALLBACK') && callbackUrl) {
      res.redirect(303, buildCallbackRedirect(callbackUrl, b.exposureKey, confirmationKey));
      return;
    }
    if (returnMethods.includes('REVEAL')) {
      sendPage(res, b, b.ctx.t('revealHeading'), revealView(b.ctx, confirmationKey), 200, true);
      return;
    }
    sendPage(
      res,
      b,
      b.ctx.t('pollHeading'),
      messageView(b.ctx, 'pollHeading', { key: 'pollIntro', vars: { app: b.ctx.appName ?? '' } }),
    );
  }

  router.get('/inquiries/:exposureKey', async (req, res) => {
    const b = await load(req, res);
    const { inquiry, ctx } = b;
    const notice = b.takeNotice();
    const anotherAccount = { url: `${b.target.base}/sign-out`, label: 'useAnother' as const };
    if (inquiry.state === 'REDEEMED') throw new PageError(410, 'completed');
    if (inquiry.expiresAt <= deps.now()) throw new PageError(410, 'expired');
    if (inquiry.state === 'REALIZED') {
      if (!b.flow.realized) throw new PageError(410, 'completed');
      await b.save();
      return sendReturn(b, res);
    }
    if (!b.flow.accountId) {
      await b.save();
      const view = inquirySignInView(ctx, {
        base: b.target.base,
        pendingEmail: b.flow.pendingEmail,
        verifiedEmail: b.flow.verifiedEmail,
        notice,
        warnOriginator: returnsToOriginator(inquiry.constraints),
      });
      return sendPage(res, b, ctx.t('title'), view, 200, true);
    }
    const found = await accountAndView(deps.issuance, b.target.app, b.flow.accountId);
    if (found?.account.status !== 'ACTIVE') {
      await b.save();
      return sendPage(
        res,
        b,
        ctx.t('errorHeading'),
        messageView(ctx, 'errorHeading', { key: 'accountUnavailable' }, anotherAccount),
        403,
      );
    }
    const { account, view } = found;
    if (!satisfiesRealizeConstraints(account.email, inquiry.constraints.realizeConstraints)) {
      await b.save();
      const msg = messageView(
        ctx,
        'errorHeading',
        { key: 'constraintMismatch', vars: { app: ctx.appName ?? '' } },
        anotherAccount,
      );
      return sendPage(res, b, ctx.t('errorHeading'), msg, 403);
    }
    const terms = await termsOwed(deps.issuance, account.id);
    if (terms) {
      await b.save();
      const entry = terms.agreement.locales[b.locale];
      const page = termsView(ctx, {
        action: `${b.target.base}/terms`,
        revision: terms.revision,
        contentSha256: entry.contentSha256,
        document: entry.document,
        notice,
      });
      return sendPage(res, b, ctx.t('termsHeading'), page);
    }
    const items = inquiryItems(view, account);
    if (items.length) {
      await b.save();
      const page = detailsView(ctx, { action: `${b.target.base}/details`, items, notice });
      return sendPage(res, b, ctx.t('detailsHeading', { app: ctx.appName ?? '' }), page);
    }
    const key = await realizeInquiry(
      { inquiries, kek: deps.issuance.kek, now: deps.now },
      inquiry.id,
      account,
      new Date(b.flow.authTime ?? deps.now().getTime()),
    );
    if (!key) throw new PageError(410, 'completed');
    b.flow.realized = true;
    await b.save();
    b.inquiry = (await inquiries.byId(inquiry.id)) ?? inquiry;
    sendReturn(b, res);
  });

  router.post('/inquiries/:exposureKey/email', form, async (req, res) => {
    const b = await loadForPost(req, res);
    const email = normalizeEmail(readForm(emailForm, req).email);
    if (!email) b.flash('emailInvalid');
    else if (!satisfiesRealizeConstraints(email, b.inquiry.constraints.realizeConstraints)) {
      b.flash('emailNotAllowed', { app: b.ctx.appName ?? '' });
    } else if ((await emailDomainPolicyOf(deps.db, email)) === 'BLOCK') {
      // A blocked domain cannot sign up (CONTRACTS "Email-domain policy"): no code is mailed, and the page says why.
      b.flash('emailDomainBlocked', { domain: emailDomainOf(email) ?? '' });
    } else {
      await mailCode(deps, flows, p.codeLimits, b, req, email);
    }
    await back(b, res);
  });

  router.post('/inquiries/:exposureKey/email/code', form, async (req, res) => {
    const b = await loadForPost(req, res);
    const { code } = readForm(codeForm, req);
    const proven = await enterCode({ limits: p.codeLimits, now: deps.now }, b, req, code);
    if (proven) b.flow.verifiedEmail = proven;
    await back(b, res);
  });

  router.post('/inquiries/:exposureKey/email/reset', form, async (req, res) => {
    const b = await loadForPost(req, res);
    readForm(plainForm, req);
    delete b.flow.pendingEmail;
    delete b.flow.verifiedEmail;
    await b.codes.drop();
    await back(b, res);
  });

  router.post('/inquiries/:exposureKey/sign-out', form, async (req, res) => {
    const b = await loadForPost(req, res);
    readForm(plainForm, req);
    // Signing out is a change of privilege too.
    await b.rotate();
    delete b.flow.accountId;
    delete b.flow.authTime;
    await back(b, res);
  });

  router.post('/inquiries/:exposureKey/terms', form, async (req, res) => {
    const b = await loadForPost(req, res);
    const form = readForm(termsForm, req);
    if (b.flow.accountId) {
      const terms = await termsOwed(deps.issuance, b.flow.accountId);
      if (terms && form.accept === 'yes' && Number(form.revision) === terms.revision) {
        const locale = form.locale === 'zh-CN' ? 'zh-CN' : 'en-US';
        await recordReceipt(deps.db, b.flow.accountId, terms, 'CONNECT_BROWSER', {
          locale,
          contentSha256: terms.agreement.locales[locale].contentSha256,
        });
      } else if (terms) b.flash('termsRequired');
    }
    await back(b, res);
  });

  router.post('/inquiries/:exposureKey/details', form, async (req, res) => {
    const b = await loadForPost(req, res);
    readForm(plainForm, req);
    const accountId = b.flow.accountId;
    const found = accountId ? await accountAndView(deps.issuance, b.target.app, accountId) : undefined;
    if (found && accountId)
      await submitDetails(deps, accounts, b, req, accountId, inquiryItems(found.view, found.account));
    await back(b, res);
  });

  passkeyRoutes(
    router,
    '/inquiries/:exposureKey',
    { deps, flows, accounts, signInLimit: p.signInLimit, load },
    true,
  );
}
