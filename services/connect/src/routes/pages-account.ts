// The person's own account page at /account: sign-in with a passkey (a fresh server-side session id at every
// sign-in, only host-issued ids accepted), then consent per claim by application, the per-sector identifier
// reset, passkeys (add with a notice mail, rename, remove unless the last) and sign out. Forms carry the
// session's CSRF token; the passkey calls of the page script send it as X-CSRF-Token.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { type Endpoint, type PageRequest, sessionCookie } from '@svc/platform';
import {
  anyForm,
  csrfValid,
  describeUserAgent,
  deviceLabel,
  layout,
  localizedName,
  noticeBeforeCommit,
  PageError,
  pageForm,
  pageKit,
  pageQuery,
  parseCookies,
  passkeyCalls,
  passkeyRefused,
  plainForm,
  postKit,
  requestLocale,
  setPageHeaders,
  translator,
} from '@svc/signin';
import type { Response } from 'express';
import { z } from 'zod';
import type { ConnectDeps } from '../deps';
import {
  changeConsent,
  RESETS_PER_ACCOUNT,
  removeFromAccountPage,
  renamePasskey,
  resetFromAccountPage,
} from '../domain/account-page';
import {
  accountSignInOptions,
  addAccountPasskey,
  addPasskeyOptions,
  findAccountSession,
  type HeldSession,
  openAccountSession,
  recentSignIn,
  signedInAccount,
  signInToAccountPage,
  signOutOfAccountPage,
  viewAccountPage,
} from '../domain/account-session';
import type { AccountSession } from '../domain/ports';
import { type AccountPageContext, accountSignInView, accountView } from '../pages/account';
import { type AccountKey, accountTranslator } from '../pages/i18n-account';
import type { ConnectPageError } from '../pages/page-statuses';

/** Form bodies of the account page (every value one string; anything else is 400). */
const consentForm = anyForm;
const resetForm = pageForm({ _csrf: z.string(), confirm: z.string().max(16).optional() });
const renameForm = pageForm({ _csrf: z.string(), name: z.string().max(256) });

/** The cookie of the account page: `__Host-` prefixed (so Secure, Path=/, no Domain) whenever served over HTTPS. */
/** What an audit row keeps of the request a person's change came in: its X-Request-Id if sane, address, browser. */
function personRequestOf(req: { ip?: string; headers: Record<string, string | string[] | undefined> }) {
  const id = req.headers['x-request-id'];
  const agent = req.headers['user-agent'];
  return {
    requestId: typeof id === 'string' && /^[\x21-\x7e]{1,128}$/.test(id) ? id : null,
    sourceAddress: req.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, 512) : null,
  };
}

export function accountCookieName(connectUrl: string): string {
  return sessionCookie('connect_account', connectUrl.startsWith('https:')).name;
}

interface AccountRequest {
  id: string;
  session: AccountSession;
  ctx: AccountPageContext;
}

/**
 * GET /account, its passkey calls (/account/passkey/...), the consent, identifier-reset and passkey forms, and
 * sign-out.
 */
export function accountPages(deps: ConnectDeps): Endpoint[] {
  const { site } = deps.signin;
  const { signInLimit } = site;
  const { ports } = deps;
  const ceremony = { accounts: site.ports.accounts, config: deps.config, clock: deps.clock };
  const reauth = { clock: deps.clock, reauthSeconds: deps.config.accountReauthSeconds };
  const cookie = sessionCookie(
    'connect_account',
    deps.config.connectUrl.startsWith('https:'),
    deps.config.secureCookies,
  );
  const setCookie = (res: Response, id: string) =>
    res.cookie(cookie.name, id, { ...cookie.options, maxAge: deps.config.flowTtlSeconds * 1000 });
  const cookieId = (req: PageRequest<unknown>) => parseCookies(req.headers.cookie)[cookie.name];

  function context(req: PageRequest<unknown>, res: Response, session: AccountSession): AccountPageContext {
    const locale = requestLocale(site, req, res);
    const a = accountTranslator(locale);
    return { locale, t: translator(locale), a, path: '/account', csrf: session.csrf, appName: a('brand') };
  }

  /** GET: the current session, or a new signed-out one under a fresh id. */
  async function open(req: PageRequest<unknown>, res: Response): Promise<AccountRequest> {
    const held = await openAccountSession(
      ports,
      { cookieId: cookieId(req), clientIp: req.ip ?? '', newSessionLimit: site.newFlowLimit },
      (id) => setCookie(res, id),
    );
    setPageHeaders(res);
    return { ...held, ctx: context(req, res, held.session) };
  }

  /** POST: an existing session and its CSRF token (form field or X-CSRF-Token), else 403. */
  async function guarded(req: PageRequest<unknown>, res: Response): Promise<AccountRequest> {
    const found = await findAccountSession(ports, cookieId(req));
    if (!found || !csrfValid(site, req, found.session)) throw new PageError('sessionExpired');
    setPageHeaders(res);
    return { ...found, ctx: context(req, res, found.session) };
  }

  /** This request now works under `held` (a session that ended handed over to its signed-out successor). */
  const moveTo = (r: AccountRequest, held: HeldSession, res: Response) => {
    setCookie(res, held.id);
    Object.assign(r, held);
    r.ctx.csrf = held.session.csrf;
  };

  /** The signed-in account of the session (domain/account-session signedInAccount); signed out, undefined. */
  async function signedIn(r: AccountRequest, res: Response): Promise<string | undefined> {
    const found = await signedInAccount(ports, r);
    if (found && 'ended' in found) moveTo(r, found.ended, res);
    return found && 'accountId' in found ? found.accountId : undefined;
  }

  /** A passkey call that adds a credential, past the window: the page offers the confirmation instead. */
  const needRecent = (r: AccountRequest) => {
    if (!recentSignIn(r.session, reauth)) throw new PageError<ConnectPageError>('recentSignInNeeded');
  };

  const flash = (r: AccountRequest, key: AccountKey, vars?: Record<string, string | number>) => {
    r.session.notice = { key, vars };
  };
  const back = async (r: AccountRequest, res: Response) => {
    await ports.accountSessions.save(r.id, r.session);
    res.redirect(303, '/account');
  };

  // A post: an existing session and its CSRF token; a form goes back to the page with its notice.
  const page = pageKit({ open, guard: guarded, back });
  /** The forms of a signed-in person; signed out (or the session just ended), back to the page, the form unread. */
  const person = postKit({
    guard: async (req, res) => {
      const r = await guarded(req, res);
      const accountId = await signedIn(r, res);
      if (!accountId) await back(r, res);
      return { r, accountId: accountId ?? '' };
    },
    back: ({ r }, res) => back(r, res),
  });

  return [
    page.view('/account', pageQuery, async (r, _req, res) => {
      const shown = await viewAccountPage(ports, reauth, r, r.ctx.locale);
      if (shown.ended) moveTo(r, shown.held, res);
      const pending = shown.notice;
      const n = pending ? { text: r.ctx.a(pending.key as AccountKey, pending.vars) } : undefined;
      const title = r.ctx.a('heading');
      const body = shown.overview ? accountView(r.ctx, shown.overview, n) : accountSignInView(r.ctx, n);
      res.type('html').send(layout(r.ctx, title, body, { scripts: true }));
    }),
    page.call(
      '/account/passkey/authentication-options',
      passkeyCalls.authenticationOptions,
      async (r, req) => {
        await signInLimit.consume(req.ip ?? '');
        return accountSignInOptions(ports, deps.config, r.id);
      },
    ),
    page.call('/account/passkey/authentication', passkeyCalls.authentication, async (r, req, res) => {
      await signInLimit.consume(req.ip ?? '');
      const body = req.body as AuthenticationResponseJSON;
      const outcome = await signInToAccountPage(ports, ceremony, r.id, body, r.ctx.locale, (id) =>
        setCookie(res, id),
      );
      if (outcome !== 'signedIn') throw new PageError(outcome);
      return { next: '/account' };
    }),
    page.call(
      '/account/passkey/registration-options',
      passkeyCalls.registrationOptions,
      async (r, req, res) => {
        const accountId = await signedIn(r, res);
        if (!accountId) throw passkeyRefused();
        needRecent(r);
        await signInLimit.consume(req.ip ?? '');
        return addPasskeyOptions(ports, deps.config, r.id, accountId);
      },
    ),
    page.call('/account/passkey/registration', passkeyCalls.registration, async (r, req, res) => {
      const body = req.body as RegistrationResponseJSON;
      const accountId = await signedIn(r, res);
      if (!accountId) throw passkeyRefused();
      // Checked again at the end of the ceremony: options fetched in the window do not stretch it.
      needRecent(r);
      await signInLimit.consume(req.ip ?? '');
      const device = describeUserAgent(req.headers['user-agent']);
      const notify = noticeBeforeCommit({ ...site.deps, accountPageUrl: site.config.accountPageUrl }, device);
      const added = await addAccountPasskey(ports, ceremony, r.id, accountId, body, {
        name: deviceLabel(device),
        notify,
        request: personRequestOf(req),
      });
      if (!added) throw passkeyRefused();
      flash(r, 'addedNotice');
      await ports.accountSessions.save(r.id, r.session);
      return { next: '/account' };
    }),
    person.form('/account/applications/:anchor/consent', consentForm, async ({ r, accountId }, req) => {
      const app = await changeConsent(ports.accountPage, accountId, String(req.params.anchor), req.body);
      if (app) flash(r, 'consentSaved', { app: localizedName(app.names, app.defaultLocale, r.ctx.locale) });
    }),
    person.form('/account/sectors/:sectorId/reset', resetForm, async ({ r, accountId }, req) => {
      const reset = await resetFromAccountPage(
        ports,
        { subjectSecret: deps.issuance.subjectSecret, clock: deps.clock },
        accountId,
        String(req.params.sectorId),
        req.body.confirm,
        personRequestOf(req),
      );
      if (reset.outcome === 'needs_confirm') flash(r, 'resetNeedsConfirm');
      else if (reset.outcome === 'limited') flash(r, 'resetLimited', { count: RESETS_PER_ACCOUNT });
      else if (reset.outcome === 'reset' && reset.sector) {
        const names = reset.sector.apps.map((a) => localizedName(a.names, a.defaultLocale, r.ctx.locale));
        flash(r, 'resetDone', { apps: names.join(r.ctx.locale === 'zh-CN' ? '、' : ', ') });
      }
    }),
    person.form('/account/passkeys/:passkeyId/rename', renameForm, async ({ r, accountId }, req) => {
      const outcome = await renamePasskey(
        ports.accountPage,
        accountId,
        String(req.params.passkeyId),
        req.body.name,
      );
      if (outcome === 'renamed') flash(r, 'renamedNotice');
      else if (outcome === 'invalid') flash(r, 'renameInvalid');
    }),
    person.form('/account/passkeys/:passkeyId/remove', plainForm, async ({ r, accountId }, req) => {
      const passkeyId = String(req.params.passkeyId);
      const outcome = await removeFromAccountPage(
        ports,
        reauth,
        r.session,
        accountId,
        passkeyId,
        personRequestOf(req),
      );
      if (outcome === 'removed') flash(r, 'removedNotice');
      else if (outcome === 'last') flash(r, 'lastNotice');
      else if (outcome === 'confirm_first') flash(r, 'confirmFirst');
    }),
    page.form('/account/sign-out', plainForm, async (r, _req, res) => {
      // Answered here: going back would save the destroyed session.
      const fresh = await signOutOfAccountPage(ports, r.id);
      setCookie(res, fresh.id);
      res.redirect(303, '/account');
    }),
  ];
}
