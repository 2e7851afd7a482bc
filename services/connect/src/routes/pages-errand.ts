// The errand pages at /errands/{errandKey}: re-authenticate the account first (its passkey, or an emailed code
// when it has none), then complete data or change consent; single use and short-lived. Also the errand poll.
// The passkey, code and details steps are the shared ones of @svc/signin; only the errand's rules are here.
import { type Endpoint, ErrandStatus, type PageRequest, pageEndpoint, statusOf } from '@svc/platform';
import {
  accountAndView,
  allClaimItems,
  appOf,
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
import { sha256Hex } from '../domain/keys';
import type { ErrandRow } from '../domain/ports';
import { errandReauthView } from '../pages/connect-views';
import type { ConnectKey } from '../pages/i18n-connect';
import type { ConnectPageError } from '../pages/page-statuses';

interface ErrandPage extends Browser<ConnectKey> {
  errand: ErrandRow;
}

const ERRAND_KEY = /^ernd_[A-Za-z0-9_-]{43}$/;

export type ErrandState = 'pending' | 'completed' | 'expired';

export function errandState(errand: ErrandRow, now: number): ErrandState {
  if (errand.state === 'COMPLETED') return 'completed';
  return errand.expiresAt.getTime() <= now ? 'expired' : 'pending';
}

/**
 * GET /errands/{errandKey}, its poll (/status), the re-authentication by emailed code, the details form and the
 * shared passkey sign-in under it.
 */
export function errandPages(deps: ConnectDeps): Endpoint[] {
  const { signin } = deps;
  const { errands } = deps.ports;
  const { accounts } = signin.site;

  const find = async (errandKey: string) =>
    ERRAND_KEY.test(errandKey) ? await errands.byKeyHash(sha256Hex(errandKey)) : undefined;

  async function load(req: PageRequest<unknown>, res: Response): Promise<ErrandPage> {
    const errandKey = String(req.params.errandKey);
    const errand = await find(errandKey);
    if (!errand) throw new PageError('notFound');
    const app = await deps.ports.issuance.applicationById(errand.applicationId);
    if (!app) throw new PageError('notFound');
    const b = await signin.open(req, res, {
      key: `errand:${errand.id}`,
      base: `/errands/${errandKey}`,
      app,
      formOrigins: [],
      accountId: errand.accountId,
    });
    return Object.assign(b, { errand });
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
        const errand = await find(String(req.params.errandKey));
        if (!errand) return void res.status(statusOf('NotFound')).json({ reason: 'NotFound' });
        res.json({ state: errandState(errand, deps.clock()), expiresAt: errand.expiresAt.toISOString() });
      },
    }),
    page.view('/errands/:errandKey', pageQuery, async (b, _req, res) => {
      const { ctx, errand } = b;
      const notice = b.takeNotice();
      const state = errandState(errand, deps.clock());
      if (state === 'completed') {
        if (!b.flow.realized) throw new PageError<ConnectPageError>('errandCompleted');
        const done = messageView(ctx, 'errandDoneHeading', {
          key: 'errandDoneIntro',
          vars: { app: ctx.appName ?? '' },
        });
        return sendPage(res, b, ctx.t('errandDoneHeading'), done);
      }
      if (state === 'expired') throw new PageError('expired');
      const found = await accountAndView(deps.issuance, appOf(b.target), errand.accountId);
      if (found?.account.status !== 'ACTIVE') throw new PageError('accountUnavailable');
      await b.save();
      if (b.flow.accountId !== errand.accountId) {
        const hasPasskey = (await accounts.passkeysOf(errand.accountId)).length > 0;
        const view = errandReauthView(ctx, {
          base: b.target.base,
          hasPasskey,
          email: found.account.email ?? '',
          codeSent: !!b.flow.pendingEmail,
          notice,
        });
        return sendPage(res, b, ctx.t('reauthHeading'), view, 200, hasPasskey);
      }
      const details = detailsView(ctx, {
        action: `${b.target.base}/details`,
        items: allClaimItems(found.view, found.account),
        notice,
      });
      sendPage(res, b, ctx.t('detailsHeading', { app: ctx.appName ?? '' }), details);
    }),
    page.form('/errands/:errandKey/email', plainForm, async (b, req) => {
      const account = await deps.ports.issuance.account(b.errand.accountId);
      const hasPasskey = (await accounts.passkeysOf(b.errand.accountId)).length > 0;
      // Only an account without a passkey re-authenticates by email.
      if (account?.email && !hasPasskey) await signin.mailCode(b, req, account.email);
    }),
    page.form('/errands/:errandKey/email/code', codeForm, async (b, req) => {
      // A right code rotates the flow identifier (re-authentication is a change of privilege).
      if (await signin.enterCode(b, req, req.body.code)) {
        b.flow.accountId = b.errand.accountId;
        b.flow.authTime = deps.clock();
        b.flow.authority = await deps.ports.issuance.authority(b.errand.accountId);
      }
    }),
    page.form('/errands/:errandKey/email/reset', plainForm, async (b) => {
      delete b.flow.pendingEmail;
      await b.codes.drop();
    }),
    page.form('/errands/:errandKey/details', detailsForm, async (b, req) => {
      // Nothing changes before the person has re-authenticated as the errand's account.
      if (b.flow.accountId !== b.errand.accountId) return;
      const found = await accountAndView(deps.issuance, appOf(b.target), b.errand.accountId);
      if (!found) throw new PageError('accountUnavailable');
      const shown = allClaimItems(found.view, found.account);
      if (
        (await signin.submitDetails(b, req, b.errand.accountId, shown)) &&
        (await errands.complete(b.errand.id, new Date(deps.clock())))
      )
        b.flow.realized = true;
    }),
    ...signin.passkeySignInEndpoints(load, {
      authenticationOptions: '/errands/:errandKey/passkey/authentication-options',
      authentication: '/errands/:errandKey/passkey/authentication',
    }),
  ];
}
