// The inquiry pages at /inquiries/{exposureKey}: the shared sign-in steps (sign in or sign up, basic terms,
// consent per claim), then connect's own final step: realize the inquiry and return (redirect to the callback,
// reveal the confirmation key, or wait for the poll).
import type { Endpoint, PageRequest } from '@svc/platform';
import { type Browser, messageView, PageError, pageQuery, sendPage } from '@svc/signin';
import type { Response } from 'express';
import type { ConnectDeps } from '../deps';
import { type InquiryReturn, inquiryPage, openInquiry } from '../domain/inquiry-page';
import type { InquiryRow } from '../domain/ports';
import { revealView } from '../pages/connect-views';
import type { ConnectKey } from '../pages/i18n-connect';

interface InquiryPage extends Browser<ConnectKey> {
  inquiry: InquiryRow;
  exposureKey: string;
}

/** GET /inquiries/{exposureKey} and the shared sign-in steps under it. */
export function inquiryPages(deps: ConnectDeps): Endpoint[] {
  const { signin, ports } = deps;

  async function load(req: PageRequest<unknown>, res: Response): Promise<InquiryPage> {
    const exposureKey = String(req.params.exposureKey);
    const found = await openInquiry(ports, exposureKey);
    if (!found) throw new PageError('notFound');
    const b = await signin.open(req, res, found.target);
    return Object.assign(b, { inquiry: found.inquiry, exposureKey });
  }

  /** The last step: where the person goes once the inquiry is realized. */
  function sendReturn(b: InquiryPage, back: InquiryReturn, res: Response): void {
    if (back.to === 'gone') throw new PageError('completed');
    if (back.to === 'callback') res.redirect(303, back.url);
    else if (back.to === 'reveal')
      sendPage(res, b, b.ctx.t('revealHeading'), revealView(b.ctx, back.confirmationKey), 200, true);
    else
      sendPage(
        res,
        b,
        b.ctx.t('pollHeading'),
        messageView(b.ctx, 'pollHeading', { key: 'pollIntro', vars: { app: b.ctx.appName ?? '' } }),
      );
  }

  const page = signin.pages(load).view('/inquiries/:exposureKey', pageQuery, async (b, _req, res) => {
    const outcome = await inquiryPage(
      ports,
      { kek: deps.issuance.kek, clock: deps.clock },
      { inquiry: b.inquiry, exposureKey: b.exposureKey, realized: !!b.flow.realized },
      () => signin.nextStep(b, res),
    );
    switch (outcome.show) {
      case 'completed':
        throw new PageError('completed');
      case 'expired':
        throw new PageError('expired');
      case 'step':
        return;
      case 'return':
        if (outcome.realizedNow) b.flow.realized = true;
        await b.save();
        return sendReturn(b, outcome.back, res);
    }
  });

  return [
    page,
    ...signin.stepEndpoints(load, {
      email: '/inquiries/:exposureKey/email',
      code: '/inquiries/:exposureKey/email/code',
      reset: '/inquiries/:exposureKey/email/reset',
      resend: '/inquiries/:exposureKey/email/resend',
      codeSignIn: '/inquiries/:exposureKey/email/sign-in',
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
