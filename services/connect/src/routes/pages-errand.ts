// The errand pages at /errands/{errandKey}: re-authenticate the account first (its passkey, or an emailed code
// when it has none), then complete data or change consent; single use and short-lived. Also the errand poll.
import { loadApplication } from '@svc/issuance';
import { formBody, noStore, type RateLimiter } from '@svc/platform';
import type { Request, Response, Router } from 'express';
import type { ConnectDeps } from '../deps';
import type { CodeLimits } from '../domain/email-codes';
import { sha256Hex } from '../domain/keys';
import { accountAndView, errandItems } from '../domain/page-steps';
import { errandReauthView } from '../pages/sign-in';
import { detailsView, messageView } from '../pages/steps';
import type { AccountStore, ErrandStore } from '../store/accounts';
import type { FlowStore } from '../store/flows';
import { type Browser, csrfValid, openBrowser, PageError, readForm, sendPage } from './browser';
import { enterCode, mailCode } from './code-entry';
import { submitDetails } from './details-form';
import { codeForm, plainForm } from './page-schemas';
import { passkeyRoutes } from './passkey-routes';

type ErrandRow = NonNullable<Awaited<ReturnType<ErrandStore['byKeyHash']>>>;

interface ErrandPage extends Browser {
  errand: ErrandRow;
}

export interface ErrandPageDeps {
  deps: ConnectDeps;
  errands: ErrandStore;
  flows: FlowStore;
  accounts: AccountStore;
  codeLimits: CodeLimits;
  signInLimit: RateLimiter;
}

const ERRAND_KEY = /^ernd_[A-Za-z0-9_-]{43}$/;

export type ErrandState = 'pending' | 'completed' | 'expired';

export function errandState(errand: ErrandRow, now: Date): ErrandState {
  if (errand.state === 'COMPLETED') return 'completed';
  return errand.expiresAt <= now ? 'expired' : 'pending';
}

export function errandPages(router: Router, p: ErrandPageDeps): void {
  const { deps, errands, flows, accounts } = p;
  const form = formBody();

  const find = async (errandKey: string) =>
    ERRAND_KEY.test(errandKey) ? await errands.byKeyHash(sha256Hex(errandKey)) : undefined;

  async function load(req: Request, res: Response): Promise<ErrandPage> {
    const errandKey = String(req.params.errandKey);
    const errand = await find(errandKey);
    if (!errand) throw new PageError(404, 'notFound');
    const app = await loadApplication(deps.db, { id: errand.applicationId });
    if (!app) throw new PageError(404, 'notFound');
    const b = await openBrowser(deps, flows, req, res, {
      key: `errand:${errand.id}`,
      base: `/errands/${errandKey}`,
      app,
      formOrigins: [],
      accountId: errand.accountId,
    });
    return Object.assign(b, { errand });
  }

  async function loadPending(req: Request, res: Response): Promise<ErrandPage> {
    const b = await load(req, res);
    if (!csrfValid(deps, req, b.flow)) throw new PageError(403, 'sessionExpired');
    if (errandState(b.errand, deps.now()) !== 'pending') throw new PageError(410, 'errandCompleted');
    return b;
  }

  const back = async (b: ErrandPage, res: Response) => {
    await b.save();
    res.redirect(303, b.target.base);
  };

  router.get('/errands/:errandKey/status', async (req, res) => {
    const errand = await find(String(req.params.errandKey));
    noStore(res);
    if (!errand) return void res.status(404).json({ reason: 'NotFound' });
    res.json({ state: errandState(errand, deps.now()), expiresAt: errand.expiresAt.toISOString() });
  });

  router.get('/errands/:errandKey', async (req, res) => {
    const b = await load(req, res);
    const { ctx, errand } = b;
    const notice = b.takeNotice();
    const state = errandState(errand, deps.now());
    if (state === 'completed') {
      if (!b.flow.realized) throw new PageError(410, 'errandCompleted');
      const done = messageView(ctx, 'errandDoneHeading', {
        key: 'errandDoneIntro',
        vars: { app: ctx.appName ?? '' },
      });
      return sendPage(res, b, ctx.t('errandDoneHeading'), done);
    }
    if (state === 'expired') throw new PageError(410, 'expired');
    const found = await accountAndView(deps.issuance, b.target.app, errand.accountId);
    if (found?.account.status !== 'ACTIVE') throw new PageError(403, 'accountUnavailable');
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
    const page = detailsView(ctx, {
      action: `${b.target.base}/details`,
      items: errandItems(found.view, found.account),
      notice,
    });
    sendPage(res, b, ctx.t('detailsHeading', { app: ctx.appName ?? '' }), page);
  });

  router.post('/errands/:errandKey/email', form, async (req, res) => {
    const b = await loadPending(req, res);
    readForm(plainForm, req);
    const account = await deps.db.account.findUnique({ where: { id: b.errand.accountId } });
    const hasPasskey = (await accounts.passkeysOf(b.errand.accountId)).length > 0;
    // Only an account without a passkey re-authenticates by email.
    if (account?.email && !hasPasskey) await mailCode(deps, flows, p.codeLimits, b, req, account.email);
    await back(b, res);
  });

  router.post('/errands/:errandKey/email/code', form, async (req, res) => {
    const b = await loadPending(req, res);
    const { code } = readForm(codeForm, req);
    // A right code rotates the flow identifier (re-authentication is a change of privilege).
    if (await enterCode({ limits: p.codeLimits, now: deps.now }, b, req, code)) {
      b.flow.accountId = b.errand.accountId;
      b.flow.authTime = deps.now().getTime();
    }
    await back(b, res);
  });

  router.post('/errands/:errandKey/email/reset', form, async (req, res) => {
    const b = await loadPending(req, res);
    readForm(plainForm, req);
    delete b.flow.pendingEmail;
    await b.codes.drop();
    await back(b, res);
  });

  router.post('/errands/:errandKey/details', form, async (req, res) => {
    const b = await loadPending(req, res);
    readForm(plainForm, req);
    // Nothing changes before the person has re-authenticated as the errand's account.
    if (b.flow.accountId !== b.errand.accountId) return back(b, res);
    const found = await accountAndView(deps.issuance, b.target.app, b.errand.accountId);
    if (!found) throw new PageError(403, 'accountUnavailable');
    const shown = errandItems(found.view, found.account);
    if (
      (await submitDetails(deps, accounts, b, req, b.errand.accountId, shown)) &&
      (await errands.complete(b.errand.id, deps.now()))
    )
      b.flow.realized = true;
    await back(b, res);
  });

  passkeyRoutes(
    router,
    '/errands/:errandKey',
    { deps, flows, accounts, signInLimit: p.signInLimit, load },
    false,
  );
}
