// The inquiry pages at /inquiries/{exposureKey}: the shared sign-in steps (sign in or sign up, basic terms,
// consent per claim), then connect's own final step: realize the inquiry and return (redirect to the callback,
// reveal the confirmation key, or wait for the poll).
import type { Endpoint, PageRequest } from '@svc/platform';
import { type Browser, messageView, PageError, pageQuery, sendPage } from '@svc/signin';
import type { Response } from 'express';
import type { ConnectDeps } from '../deps';
import { buildCallbackRedirect } from '../domain/callback-url';
import { satisfiesRealizeConstraints } from '../domain/email-match';
import { openConfirmationKey, returnsToOriginator } from '../domain/inquiry-status';
import { sha256Hex } from '../domain/keys';
import type { InquiryRow } from '../domain/ports';
import { realizeInquiry } from '../domain/realize';
import { revealView } from '../pages/connect-views';
import type { ConnectKey } from '../pages/i18n-connect';

interface InquiryPage extends Browser<ConnectKey> {
  inquiry: InquiryRow;
  exposureKey: string;
}

const EXPOSURE_KEY = /^iqe_[A-Za-z0-9_-]{43}$/;

/** GET /inquiries/{exposureKey} and the shared sign-in steps under it. */
export function inquiryPages(deps: ConnectDeps): Endpoint[] {
  const { signin } = deps;
  const { inquiries } = deps.ports;

  async function load(req: PageRequest<unknown>, res: Response): Promise<InquiryPage> {
    const exposureKey = String(req.params.exposureKey);
    const inquiry = EXPOSURE_KEY.test(exposureKey)
      ? await inquiries.byExposureHash(sha256Hex(exposureKey))
      : undefined;
    if (!inquiry) throw new PageError('notFound');
    const app = await deps.ports.issuance.applicationById(inquiry.applicationId);
    if (!app) throw new PageError('notFound');
    const { callbackUrl, realizeConstraints } = inquiry.constraints;
    const b = await signin.open(req, res, {
      key: `inquiry:${inquiry.id}`,
      base: `/inquiries/${exposureKey}`,
      app,
      formOrigins: callbackUrl ? [new URL(callbackUrl).origin] : [],
      admitsEmail: (email) => satisfiesRealizeConstraints(email, realizeConstraints),
      warnOriginator: returnsToOriginator(inquiry.constraints),
    });
    return Object.assign(b, { inquiry, exposureKey });
  }

  /** The last step: where the person goes once the inquiry is realized. */
  function sendReturn(b: InquiryPage, res: Response): void {
    const { returnMethods, callbackUrl } = b.inquiry.constraints;
    const confirmationKey = openConfirmationKey(deps.issuance.kek, b.inquiry);
    if (!confirmationKey) throw new PageError('completed');
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

  const page = signin.pages(load).view('/inquiries/:exposureKey', pageQuery, async (b, _req, res) => {
    const { inquiry } = b;
    if (inquiry.state === 'REDEEMED') throw new PageError('completed');
    if (inquiry.expiresAt.getTime() <= deps.clock()) throw new PageError('expired');
    if (inquiry.state === 'REALIZED') {
      if (!b.flow.realized) throw new PageError('completed');
      await b.save();
      return sendReturn(b, res);
    }
    const signedIn = await signin.nextStep(b, res);
    if (!signedIn) return;
    const key = await realizeInquiry(
      { inquiries, kek: deps.issuance.kek, clock: deps.clock },
      inquiry.id,
      // The authority recorded at sign-in: /redeem issues only while the account still has it.
      { id: signedIn.account.id, authorityVersion: signedIn.authority.version },
      signedIn.authTime,
    );
    if (!key) throw new PageError('completed');
    b.flow.realized = true;
    await b.save();
    b.inquiry = (await inquiries.byId(inquiry.id)) ?? inquiry;
    sendReturn(b, res);
  });

  return [
    page,
    ...signin.stepEndpoints(load, {
      email: '/inquiries/:exposureKey/email',
      code: '/inquiries/:exposureKey/email/code',
      reset: '/inquiries/:exposureKey/email/reset',
      signOut: '/inquiries/:exposureKey/sign-out',
      terms: '/inquiries/:exposureKey/terms',
      details: '/inquiries/:exposureKey/details',
      authenticationOptions: '/inquiries/:exposureKey/passkey/authentication-options',
      authentication: '/inquiries/:exposureKey/passkey/authentication',
      registrationOptions: '/inquiries/:exposureKey/passkey/registration-options',
      registration: '/inquiries/:exposureKey/passkey/registration',
    }),
  ];
}
