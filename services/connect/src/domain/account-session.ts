// The account page's sign-in rules: only sessions this host issued are accepted (a view without one starts a
// signed-out session, counted per address), a session stays signed in only while its account is ACTIVE under the
// authority version and passkey it signed in with, signing in moves it to a fresh id, and passkeys are added to
// a signed-in account only after a recent passkey sign-in (checked by the route before these run).
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { type AuditContext, changed, personActor } from '@svc/audit';
import type { Clock, RateLimiter } from '@svc/platform';
import {
  type AccountStore,
  authenticationOptions,
  type PasskeyOwner,
  type RelyingParty,
  registrationOptions,
  verifyAuthentication,
  verifyNewCredential,
} from '@svc/signin';
import { type AccountOverview, accountOverview, recentlyAuthenticated } from './account-page';
import type { AccountSession, ConnectPorts } from './ports';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

type SessionPorts = Pick<ConnectPorts, 'accountSessions' | 'accountPage'>;

/** A session held by this request: its host-issued id and its state. */
export interface HeldSession {
  id: string;
  session: AccountSession;
}

/** The session a cookie names, if the host issued it and it is still alive. */
export async function findAccountSession(
  ports: SessionPorts,
  cookieId: string | undefined,
): Promise<HeldSession | undefined> {
  if (!cookieId || !SESSION_ID.test(cookieId)) return undefined;
  const session = await ports.accountSessions.load(cookieId);
  return session ? { id: cookieId, session } : undefined;
}

/**
 * A view's session: the one the cookie names, else a new signed-out one under a fresh id (`created` hears it at
 * once, for the cookie). Each view without a session writes one for FLOW_TTL_SECONDS: counted per address like
 * the flows.
 */
export async function openAccountSession(
  ports: SessionPorts,
  request: { cookieId: string | undefined; clientIp: string; newSessionLimit?: RateLimiter },
  created: (id: string) => void,
): Promise<HeldSession> {
  const found = await findAccountSession(ports, request.cookieId);
  if (found) return found;
  await request.newSessionLimit?.consume(request.clientIp);
  const fresh = await ports.accountSessions.create();
  created(fresh.id);
  return fresh;
}

/**
 * The signed-in account of a session while it is ACTIVE, still under the authority version it signed in under and
 * still holds the passkey it signed in with; otherwise the session is ended and `ended` is a new signed-out one
 * carrying the notice (a disabled account, or a passkey removed from another session). Undefined: signed out.
 */
export async function signedInAccount(
  ports: SessionPorts,
  held: HeldSession,
): Promise<{ accountId: string } | { ended: HeldSession } | undefined> {
  const { accountId, authorityVersion, passkeyId } = held.session;
  if (!accountId) return undefined;
  if (await ports.accountPage.activeHolder(accountId, authorityVersion, passkeyId)) return { accountId };
  await ports.accountSessions.destroy(held.id);
  return { ended: await ports.accountSessions.create({ notice: { key: 'sessionEnded' } }) };
}

/** Signed in with a passkey within ACCOUNT_REAUTH_SECONDS: adding or removing passkeys needs it. */
export function recentSignIn(
  session: AccountSession,
  values: { clock: Clock; reauthSeconds: number },
): boolean {
  return recentlyAuthenticated(session.authTime, values.clock(), values.reauthSeconds);
}

/**
 * A view of the page: whether the session is still signed in (`ended`: it was not, and `held` is its signed-out
 * successor), its one-time notice taken (the session is saved without it), and for a signed-in account the page's
 * locale remembered and what the page shows.
 */
export async function viewAccountPage(
  ports: SessionPorts,
  values: { clock: Clock; reauthSeconds: number },
  held: HeldSession,
  locale: string,
): Promise<{
  held: HeldSession;
  ended: boolean;
  notice: AccountSession['notice'];
  overview?: AccountOverview;
}> {
  const signedIn = await signedInAccount(ports, held);
  const current = signedIn && 'ended' in signedIn ? signedIn.ended : held;
  const ended = current !== held;
  const notice = current.session.notice;
  delete current.session.notice;
  await ports.accountSessions.save(current.id, current.session);
  if (!signedIn || !('accountId' in signedIn)) return { held: current, ended, notice };
  await ports.accountPage.setLocale(signedIn.accountId, locale);
  const recent = recentSignIn(current.session, values);
  return {
    held: current,
    ended,
    notice,
    overview: await accountOverview(ports.accountPage, signedIn.accountId, recent),
  };
}

/** The WebAuthn ceremony's parts: the sign-in accounts (passkeys by credential), the relying party, the clock. */
export interface AccountCeremony {
  accounts: AccountStore;
  config: RelyingParty;
  clock: Clock;
}

/** Options of a passkey sign-in, the challenge kept on the session. */
export async function accountSignInOptions(ports: SessionPorts, config: RelyingParty, sessionId: string) {
  const options = await authenticationOptions(config);
  await ports.accountSessions.putChallenge(sessionId, { value: options.challenge, kind: 'authenticate' });
  return options;
}

/**
 * A passkey sign-in to the page: verified against the session's challenge (taken once), the account must be
 * ACTIVE; the session then moves to a fresh id (whatever id this browser held before, planted or not, never
 * becomes signed in) recording the account, the passkey, when, and the authority version read with the
 * credential (`moved` hears the new id at once, for the cookie). 'sessionExpired' when the old id was rotated by a
 * concurrent request or expired.
 */
export async function signInToAccountPage(
  ports: SessionPorts,
  ceremony: AccountCeremony,
  sessionId: string,
  response: AuthenticationResponseJSON,
  locale: string,
  moved: (id: string) => void,
): Promise<'signedIn' | 'accountUnavailable' | 'sessionExpired'> {
  const challenge = await ports.accountSessions.takeChallenge(sessionId);
  const { accountId, authority } = await verifyAuthentication(
    { config: ceremony.config, accounts: ceremony.accounts, clock: ceremony.clock },
    response,
    challenge,
  );
  const account = await ports.accountPage.account(accountId);
  if (account?.status !== 'ACTIVE') return 'accountUnavailable';
  const passkeyId = await ports.accountPage.passkeyIdOf(response.id);
  const fresh = await ports.accountSessions.rotate(sessionId, {
    accountId,
    passkeyId,
    authTime: ceremony.clock(),
    authorityVersion: authority.version,
  });
  if (!fresh) return 'sessionExpired';
  moved(fresh.id);
  await ports.accountPage.setLocale(accountId, locale);
  return 'signedIn';
}

/** Options to add a passkey to the signed-in account (its own excluded), the challenge kept on the session. */
export async function addPasskeyOptions(
  ports: SessionPorts,
  config: RelyingParty,
  sessionId: string,
  accountId: string,
) {
  const account = await ports.accountPage.account(accountId);
  const existing = await ports.accountPage.passkeys(accountId);
  const { options, userHandle } = await registrationOptions(config, account?.email ?? accountId, existing);
  await ports.accountSessions.putChallenge(sessionId, {
    value: options.challenge,
    kind: 'register',
    userHandle,
  });
  return options;
}

/**
 * Adds the verified passkey to the signed-in account, named after the browser that made it; `notify` tells the
 * owner inside the transaction (no notice, no passkey). False when nothing was added.
 */
export async function addAccountPasskey(
  ports: SessionPorts & Pick<ConnectPorts, 'accountChanges'>,
  ceremony: Omit<AccountCeremony, 'clock'>,
  sessionId: string,
  accountId: string,
  response: RegistrationResponseJSON,
  added: {
    name: string | undefined;
    notify: (owner: PasskeyOwner) => Promise<void>;
    /** The request that carried it, for the audit row. */
    request?: Omit<AuditContext, 'actor'>;
  },
): Promise<boolean> {
  const challenge = await ports.accountSessions.takeChallenge(sessionId);
  const credential = await verifyNewCredential(ceremony, response, challenge);
  // The passkey, its owner's notice and the audit row in one transaction: no row, no passkey.
  return ports.accountChanges.as(personActor(accountId, added.request)).run(async (tx, audit) => {
    const ok = await tx.accountPage.addPasskey(accountId, { ...credential, name: added.name }, added.notify);
    if (ok) {
      audit.record({
        action: 'passkey.add',
        target: { type: 'account', id: accountId },
        changes: { passkeyName: changed(null, added.name ?? null) },
      });
    }
    return ok;
  });
}

/**
 * Sign-out: the session ends, and the next page view starts a new signed-out session under a new id, carrying the
 * notice.
 */
export async function signOutOfAccountPage(ports: SessionPorts, sessionId: string): Promise<HeldSession> {
  await ports.accountSessions.destroy(sessionId);
  return ports.accountSessions.create({ notice: { key: 'signedOutNotice' } });
}
