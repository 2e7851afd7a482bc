// The person's own account page at /account: sign-in with a passkey (a fresh server-side session id at every
// sign-in, only host-issued ids accepted), then consent per claim by application, the per-sector identifier
// reset, passkeys (add with a notice mail, rename, remove unless the last) and sign out. Forms carry the
// session's CSRF token; the passkey calls of the page script send it as X-CSRF-Token.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { type Endpoint, type PageRequest, sessionCookie } from '@svc/platform';
import {
  anyForm,
  authenticationOptions,
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
  registrationOptions,
  requestLocale,
  setPageHeaders,
  translator,
  verifyAuthentication,
  verifyNewCredential,
} from '@svc/signin';
import type { Response } from 'express';
import { z } from 'zod';
import type { ConnectDeps } from '../deps';
import {
  accountOverview,
  changeConsent,
  RESETS_PER_ACCOUNT,
  recentlyAuthenticated,
  removePasskey,
  renamePasskey,
  resetSectorIdentifier,
  UUID,
} from '../domain/account-page';
import type { AccountSession } from '../domain/ports';
import { type AccountPageContext, accountSignInView, accountView } from '../pages/account';
import { type AccountKey, accountTranslator } from '../pages/i18n-account';
import type { ConnectPageError } from '../pages/page-statuses';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Form bodies of the account page (every value one string; anything else is 400). */
const consentForm = anyForm;
const resetForm = pageForm({ _csrf: z.string(), confirm: z.string().max(16).optional() });
const renameForm = pageForm({ _csrf: z.string(), name: z.string().max(256) });

/** The cookie of the account page: `__Host-` prefixed (so Secure, Path=/, no Domain) whenever served over HTTPS. */
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
  const { accounts } = site.ports;
  const { accountSessions: sessions, accountPage: store } = deps.ports;
  const cookie = sessionCookie(
    'connect_account',
    deps.config.connectUrl.startsWith('https:'),
    deps.config.secureCookies,
  );
  const setCookie = (res: Response, id: string) =>
    res.cookie(cookie.name, id, { ...cookie.options, maxAge: deps.config.flowTtlSeconds * 1000 });

  function context(req: PageRequest<unknown>, res: Response, session: AccountSession): AccountPageContext {
    const locale = requestLocale(site, req, res);
    const a = accountTranslator(locale);
    return { locale, t: translator(locale), a, path: '/account', csrf: session.csrf, appName: a('brand') };
  }

  /** The session this cookie names, if the host issued it and it is still alive. */
  async function existing(
    req: PageRequest<unknown>,
  ): Promise<{ id: string; session: AccountSession } | undefined> {
    const id = parseCookies(req.headers.cookie)[cookie.name];
    if (!id || !SESSION_ID.test(id)) return undefined;
    const session = await sessions.load(id);
    return session ? { id, session } : undefined;
  }

  /** GET: the current session, or a new signed-out one under a fresh id. */
  async function open(req: PageRequest<unknown>, res: Response): Promise<AccountRequest> {
    let found = await existing(req);
    if (!found) {
      // Each view without a session writes one (for FLOW_TTL_SECONDS): counted per address like the flows.
      await site.newFlowLimit?.consume(req.ip ?? '');
      found = await sessions.create();
      setCookie(res, found.id);
    }
    setPageHeaders(res);
    return { ...found, ctx: context(req, res, found.session) };
  }

  /** POST: an existing session and its CSRF token (form field or X-CSRF-Token), else 403. */
  async function guarded(req: PageRequest<unknown>, res: Response): Promise<AccountRequest> {
    const found = await existing(req);
    if (!found || !csrfValid(site, req, found.session)) throw new PageError('sessionExpired');
    setPageHeaders(res);
    return { ...found, ctx: context(req, res, found.session) };
  }

  /**
   * The signed-in account of a session while it is ACTIVE and still holds the passkey the session signed in
   * with; otherwise the session is signed out (a disabled account, or a passkey removed from another session).
   */
  async function signedIn(r: AccountRequest, res: Response): Promise<string | undefined> {
    const accountId = r.session.accountId;
    if (!accountId) return undefined;
    if (await store.activeHolder(accountId, r.session.authorityVersion, r.session.passkeyId))
      return accountId;
    await sessions.destroy(r.id);
    const fresh = await sessions.create({ notice: { key: 'sessionEnded' } });
    setCookie(res, fresh.id);
    Object.assign(r, fresh);
    r.ctx.csrf = fresh.session.csrf;
    return undefined;
  }

  /** Signed in with a passkey within ACCOUNT_REAUTH_SECONDS: adding or removing passkeys needs it. */
  const recent = (r: AccountRequest) =>
    recentlyAuthenticated(r.session.authTime, deps.clock(), deps.config.accountReauthSeconds);
  /** A passkey call that adds a credential, past the window: the page offers the confirmation instead. */
  const needRecent = (r: AccountRequest) => {
    if (!recent(r)) throw new PageError<ConnectPageError>('recentSignInNeeded');
  };

  const flash = (r: AccountRequest, key: AccountKey, vars?: Record<string, string | number>) => {
    r.session.notice = { key, vars };
  };
  const back = async (r: AccountRequest, res: Response) => {
    await sessions.save(r.id, r.session);
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
      const accountId = await signedIn(r, res);
      const pending = r.session.notice;
      delete r.session.notice;
      await sessions.save(r.id, r.session);
      const n = pending ? { text: r.ctx.a(pending.key as AccountKey, pending.vars) } : undefined;
      const title = r.ctx.a('heading');
      if (!accountId) {
        res.type('html').send(layout(r.ctx, title, accountSignInView(r.ctx, n), { scripts: true }));
        return;
      }
      await store.setLocale(accountId, r.ctx.locale);
      const overview = await accountOverview(store, accountId, recent(r));
      res.type('html').send(layout(r.ctx, title, accountView(r.ctx, overview, n), { scripts: true }));
    }),
    page.call(
      '/account/passkey/authentication-options',
      passkeyCalls.authenticationOptions,
      async (r, req) => {
        await signInLimit.consume(req.ip ?? '');
        const options = await authenticationOptions(deps.config);
        await sessions.putChallenge(r.id, { value: options.challenge, kind: 'authenticate' });
        return options;
      },
    ),
    page.call('/account/passkey/authentication', passkeyCalls.authentication, async (r, req, res) => {
      const body = req.body as AuthenticationResponseJSON;
      await signInLimit.consume(req.ip ?? '');
      const challenge = await sessions.takeChallenge(r.id);
      const { accountId, authority } = await verifyAuthentication(
        { config: deps.config, accounts, clock: deps.clock },
        body,
        challenge,
      );
      const account = await store.account(accountId);
      if (account?.status !== 'ACTIVE') throw new PageError('accountUnavailable');
      // A fresh id at sign-in: whatever id this browser held before (planted or not) never becomes signed in.
      const passkeyId = await store.passkeyIdOf(body.id);
      const fresh = await sessions.rotate(r.id, {
        accountId,
        passkeyId,
        authTime: deps.clock(),
        authorityVersion: authority.version,
      });
      if (!fresh) throw new PageError('sessionExpired');
      setCookie(res, fresh.id);
      await store.setLocale(accountId, r.ctx.locale);
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
        const account = await store.account(accountId);
        const existingPasskeys = await store.passkeys(accountId);
        const { options, userHandle } = await registrationOptions(
          deps.config,
          account?.email ?? accountId,
          existingPasskeys,
        );
        await sessions.putChallenge(r.id, { value: options.challenge, kind: 'register', userHandle });
        return options;
      },
    ),
    page.call('/account/passkey/registration', passkeyCalls.registration, async (r, req, res) => {
      const body = req.body as RegistrationResponseJSON;
      const accountId = await signedIn(r, res);
      if (!accountId) throw passkeyRefused();
      // Checked again at the end of the ceremony: options fetched in the window do not stretch it.
      needRecent(r);
      await signInLimit.consume(req.ip ?? '');
      const challenge = await sessions.takeChallenge(r.id);
      const credential = await verifyNewCredential({ config: deps.config, accounts }, body, challenge);
      const device = describeUserAgent(req.headers['user-agent']);
      const notify = noticeBeforeCommit({ ...site.deps, accountPageUrl: site.config.accountPageUrl }, device);
      if (!(await store.addPasskey(accountId, { ...credential, name: deviceLabel(device) }, notify)))
        throw passkeyRefused();
      flash(r, 'addedNotice');
      await sessions.save(r.id, r.session);
      return { next: '/account' };
    }),
    person.form('/account/applications/:anchor/consent', consentForm, async ({ r, accountId }, req) => {
      const anchor = String(req.params.anchor);
      if (!(await changeConsent(store, accountId, anchor, req.body))) return;
      const app = (await accountOverview(store, accountId)).sectors
        .flatMap((s) => s.apps)
        .find((a) => a.anchor === anchor);
      if (app) flash(r, 'consentSaved', { app: localizedName(app.names, app.defaultLocale, r.ctx.locale) });
    }),
    person.form('/account/sectors/:sectorId/reset', resetForm, async ({ r, accountId }, req) => {
      const sectorId = String(req.params.sectorId);
      if (req.body.confirm !== 'yes') return flash(r, 'resetNeedsConfirm');
      if (!UUID.test(sectorId)) return;
      const sector = (await accountOverview(store, accountId)).sectors.find((s) => s.id === sectorId);
      const reset = await resetSectorIdentifier(
        deps.ports,
        { subjectSecret: deps.issuance.subjectSecret, clock: deps.clock },
        accountId,
        sectorId,
      );
      if (reset === 'limited') flash(r, 'resetLimited', { count: RESETS_PER_ACCOUNT });
      if (reset === 'reset' && sector) {
        const names = sector.apps.map((a) => localizedName(a.names, a.defaultLocale, r.ctx.locale));
        flash(r, 'resetDone', { apps: names.join(r.ctx.locale === 'zh-CN' ? '、' : ', ') });
      }
    }),
    person.form('/account/passkeys/:passkeyId/rename', renameForm, async ({ r, accountId }, req) => {
      const outcome = await renamePasskey(store, accountId, String(req.params.passkeyId), req.body.name);
      if (outcome === 'renamed') flash(r, 'renamedNotice');
      else if (outcome === 'invalid') flash(r, 'renameInvalid');
    }),
    person.form('/account/passkeys/:passkeyId/remove', plainForm, async ({ r, accountId }, req) => {
      const passkeyId = String(req.params.passkeyId);
      const removal = await removePasskey(deps.ports, deps.clock, accountId, passkeyId, recent(r));
      const outcome = removal.outcome;
      if (removal.outcome === 'removed') {
        // This session made the change and stays signed in under the version it left (its own transaction's);
        // every other sign-in of the account is out. Removing the passkey it signed in with keeps it too (it
        // proved itself and chose to).
        r.session.authorityVersion = removal.authorityVersion;
        if (r.session.passkeyId === passkeyId) delete r.session.passkeyId;
      }
      if (outcome === 'removed') flash(r, 'removedNotice');
      else if (outcome === 'last') flash(r, 'lastNotice');
      else if (outcome === 'confirm_first') flash(r, 'confirmFirst');
    }),
    page.form('/account/sign-out', plainForm, async (r, _req, res) => {
      await sessions.destroy(r.id);
      // The next page view starts a new signed-out session under a new id, carrying the notice (answered here:
      // going back would save the destroyed session).
      const fresh = await sessions.create({ notice: { key: 'signedOutNotice' } });
      setCookie(res, fresh.id);
      res.redirect(303, '/account');
    }),
  ];
}
