// The errand pages at /errands/{errandKey}: re-authenticate the account first (its passkey, or an emailed code
// when it has none), then complete data or change consent; single use and short-lived. Also the errand poll.
// The passkey, code and details steps are the shared ones of @svc/signin; the errand's rules are domain/errand-page.
import type { ApplicationContext } from '@svc/issuance';
import { type Endpoint, ErrandStatus, type PageRequest, pageEndpoint, statusOf } from '@svc/platform';
import {
  type Browser,
  codeForm,
  detailsForm,
  detailsView,
  messageView,
  PageError,
  pageQuery,
  plainForm,
  sendPage,
} from '@svc/signin';
import type { Response } from 'express';
import type { ConnectDeps } from '../deps';
import {
  errandCodeAddress,
  errandPage,
  errandReauthenticated,
  errandState,
  errandStatus,
  openErrand,
  submitErrandDetails,
} from '../domain/errand-page';
import type { ErrandRow } from '../domain/ports';
import { errandReauthView } from '../pages/connect-views';
import type { ConnectKey } from '../pages/i18n-connect';
import type { ConnectPageError } from '../pages/page-statuses';

interface ErrandPage extends Browser<ConnectKey> {
  errand: ErrandRow;
  app: ApplicationContext;
}

/**
 * GET /errands/{errandKey}, its poll (/status), the re-authentication by emailed code, the details form and the
 * shared passkey sign-in under it.
 */
export function errandPages(deps: ConnectDeps): Endpoint[] {
  const { signin, ports } = deps;

  async function load(req: PageRequest<unknown>, res: Response): Promise<ErrandPage> {
    const errandKey = String(req.params.errandKey);
    const found = await openErrand(ports, errandKey);
    if (!found) throw new PageError('notFound');
    const { errand, app } = found;
    const b = await signin.open(req, res, {
      key: `errand:${errand.id}`,
      base: `/errands/${errandKey}`,
      app,
      formOrigins: [],
      accountId: errand.accountId,
    });
    return Object.assign(b, { errand, app });
  }

  /** A post: the errand's page, its CSRF token and Origin checked, while the errand is pending. */
  async function loadPending(req: PageRequest<unknown>, res: Response): Promise<ErrandPage> {
    const b = await load(req, res);
    signin.guard(b, req);
    if (errandState(b.errand, deps.clock()) !== 'pending')
      throw new PageError<ConnectPageError>('errandCompleted');
    return b;
  }

  // A post goes back to the errand's page.
  const page = signin.pages(load, loadPending);

  return [
    pageEndpoint({
      method: 'GET',
      path: '/errands/:errandKey/status',
      body: { kind: 'none' },
      noStore: true,
      doc: { answers: [{ schema: ErrandStatus }] },
      page: async (req, res) => {
        const status = await errandStatus(ports, String(req.params.errandKey), deps.clock());
        if (!status) return void res.status(statusOf('NotFound')).json({ reason: 'NotFound' });
        res.json(status);
      },
    }),
    page.view('/errands/:errandKey', pageQuery, async (b, _req, res) => {
      const { ctx } = b;
      const notice = b.takeNotice();
      const shown = await errandPage(ports, b, deps.clock());
      switch (shown.show) {
        case 'done': {
          const done = messageView(ctx, 'errandDoneHeading', {
            key: 'errandDoneIntro',
            vars: { app: ctx.appName ?? '' },
          });
          return sendPage(res, b, ctx.t('errandDoneHeading'), done);
        }
        case 'completed':
          throw new PageError<ConnectPageError>('errandCompleted');
        case 'expired':
          throw new PageError('expired');
        case 'accountUnavailable':
          throw new PageError('accountUnavailable');
        case 'reauth': {
          await b.save();
          const view = errandReauthView(ctx, {
            base: b.target.base,
            hasPasskey: shown.hasPasskey,
            email: shown.email,
            codeSent: !!b.flow.pendingEmail,
            notice,
          });
          return sendPage(res, b, ctx.t('reauthHeading'), view, 200, shown.hasPasskey);
        }
        case 'details': {
          await b.save();
          const details = detailsView(ctx, {
            action: `${b.target.base}/details`,
            items: shown.items,
            notice,
          });
          return sendPage(res, b, ctx.t('detailsHeading', { app: ctx.appName ?? '' }), details);
        }
      }
    }),
    page.form('/errands/:errandKey/email', plainForm, async (b, req) => {
      const email = await errandCodeAddress(ports, b.errand);
      if (!email) return;
      // Asked again from the code page: a new code, the one before stops working.
      const again = !!b.flow.pendingEmail;
      if ((await signin.mailCode(b, req, email, again)) && again) b.flash('codeResent', { email });
    }),
    page.form('/errands/:errandKey/email/code', codeForm, async (b, req) => {
      // A right code rotates the flow identifier (re-authentication is a change of privilege).
      if (await signin.enterCode(b, req, req.body.code))
        Object.assign(b.flow, await errandReauthenticated(ports, b.errand, deps.clock()));
    }),
    page.form('/errands/:errandKey/email/reset', plainForm, async (b) => {
      delete b.flow.pendingEmail;
      await b.codes.drop();
    }),
    page.form('/errands/:errandKey/details', detailsForm, async (b, req) => {
      const outcome = await submitErrandDetails(
        ports,
        { errand: b.errand, app: b.app, flowAccountId: b.flow.accountId },
        deps.clock(),
        (shown) => signin.submitDetails(b, req, b.errand.accountId, shown),
      );
      if (outcome === 'accountUnavailable') throw new PageError('accountUnavailable');
      if (outcome === 'completed') b.flow.realized = true;
    }),
    ...signin.passkeySignInEndpoints(load, {
      authenticationOptions: '/errands/:errandKey/passkey/authentication-options',
      authentication: '/errands/:errandKey/passkey/authentication',
    }),
  ];
}
