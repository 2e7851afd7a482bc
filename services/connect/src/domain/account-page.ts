// The rules of the person's own account page, without HTTP or SQL: what it shows (applications by sector with
// consent per claim, passkeys), consent changes, the per-sector identifier reset, and passkey rename and removal.
import { type AuditContext, changed, personActor } from '@svc/audit';
import { type Clock, ServiceError } from '@svc/platform';
import { CLAIM_KEYS, type ClaimKey, normalizeRequirements, type Requirement } from '@svc/token-core';
import type { AccountPageStore, AccountSession, ConnectPorts, RemoveOutcome, RemoveResult } from './ports';

/** Claims a person decides on: the ones an application may ask for (never OFF or SYNTHETIC_ONLY). */
const DECIDED = new Set<Requirement>(['OPTIONAL', 'REQUIRED', 'SYNTHETIC_FALLBACK']);

export interface ClaimChoice {
  key: ClaimKey;
  requirement: Requirement;
  state: 'GRANTED' | 'DENIED' | 'UNKNOWN';
}

export interface AppEntry {
  id: string;
  anchor: string;
  names: Record<string, string>;
  defaultLocale: string;
  claims: ClaimChoice[];
}

export interface SectorEntry {
  id: string;
  name: string;
  apps: AppEntry[];
}

export interface PasskeyEntry {
  id: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface AccountOverview {
  email: string | null;
  sectors: SectorEntry[];
  passkeys: PasskeyEntry[];
  /** The session signed in recently enough to add or remove passkeys (see recentlyAuthenticated). */
  recentSignIn: boolean;
}

/**
 * Adding or removing a passkey needs a passkey sign-in at most `windowSeconds` ago (ACCOUNT_REAUTH_SECONDS), so
 * a stolen or left-open account-page session cannot plant a passkey of its own (or remove the owner's) without
 * the owner's passkey: past the window, a passkey confirmation (the sign-in ceremony again) comes first. An auth
 * time in the future (a clock stepped back) does not count as recent.
 */
export function recentlyAuthenticated(
  authTime: number | undefined,
  now: number,
  windowSeconds: number,
): boolean {
  return authTime !== undefined && authTime <= now && now - authTime <= windowSeconds * 1000;
}

export async function accountOverview(
  store: AccountPageStore,
  accountId: string,
  recentSignIn = false,
): Promise<AccountOverview> {
  const [account, apps, grants, passkeys] = await Promise.all([
    store.account(accountId),
    store.usedApplications(accountId),
    store.grants(accountId),
    store.passkeys(accountId),
  ]);
  const stateOf = new Map(grants.map((g) => [`${g.applicationId}:${g.claim}`, g.state]));
  const sectors = new Map<string, SectorEntry>();
  for (const app of apps) {
    const requirements = normalizeRequirements(app.claimRequirements);
    const claims = CLAIM_KEYS.filter((key) => DECIDED.has(requirements[key])).map((key) => ({
      key,
      requirement: requirements[key],
      state: stateOf.get(`${app.id}:${key}`) ?? ('UNKNOWN' as const),
    }));
    const sector = sectors.get(app.sector.id) ?? { id: app.sector.id, name: app.sector.name, apps: [] };
    sector.apps.push({
      id: app.id,
      anchor: app.anchor,
      names: app.names,
      defaultLocale: app.defaultLocale,
      claims,
    });
    sectors.set(sector.id, sector);
  }
  return {
    email: account?.email ?? null,
    sectors: [...sectors.values()],
    passkeys: passkeys.map(({ id, name, createdAt, lastUsedAt }) => ({ id, name, createdAt, lastUsedAt })),
    recentSignIn,
  };
}

/**
 * Records the consent decisions posted for one application the person has used, only for the claims it may ask
 * about. Returns false when the application is not among theirs (nothing changes).
 */
export async function changeConsent(
  store: AccountPageStore,
  accountId: string,
  anchor: string,
  form: Record<string, unknown>,
): Promise<AppEntry | undefined> {
  const overview = await accountOverview(store, accountId);
  const app = overview.sectors.flatMap((s) => s.apps).find((a) => a.anchor === anchor);
  if (!app) return undefined;
  const decisions: Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>> = {};
  for (const { key } of app.claims) {
    const value = form[`consent_${key}`];
    if (value === 'GRANTED' || value === 'DENIED') decisions[key] = value;
  }
  await store.setConsent(accountId, app.id, decisions);
  return app;
}

/**
 * Identifier resets an account may make in a day (RESET_WINDOW_SECONDS), all sectors together: each one writes a
 * subject row for good, revokes sessions and ends the account's sign-ins on the OIDC host, so an open account page
 * must not loop it.
 */
export const RESETS_PER_ACCOUNT = 5;
export const RESET_WINDOW_SECONDS = 86_400;

export type ResetOutcome = 'reset' | 'not_used' | 'limited';

/**
 * "Reset my identifier for these applications": the account gets a new pairwise subject in the sector (the old one
 * retires), and its sessions under the sector's applications are revoked on every replica, so the applications
 * see a new person from the next sign-in. Only a sector whose applications the person has used ('not_used'
 * otherwise), at most RESETS_PER_ACCOUNT a day ('limited' past it: nothing changes).
 */
/** The request a person's change came in, for its audit row. */
export type PersonRequest = Omit<AuditContext, 'actor'>;

export async function resetSectorIdentifier(
  ports: Pick<ConnectPorts, 'accountPage' | 'issuance' | 'resetLimit' | 'accountChanges'>,
  values: { subjectSecret: string; clock: Clock },
  accountId: string,
  sectorId: string,
  request: PersonRequest = {},
): Promise<ResetOutcome> {
  const used = await ports.accountPage.usedApplications(accountId);
  if (!used.some((a) => a.sector.id === sectorId)) return 'not_used';
  try {
    await ports.resetLimit.consume(accountId);
  } catch (err) {
    if (err instanceof ServiceError && err.reason === 'TooManyAttempts') return 'limited';
    throw err;
  }
  const { subjectSecret, clock } = values;
  // The rotation, the sessions it ends and the audit row commit together.
  const revoked = await ports.accountChanges.as(personActor(accountId, request)).run(async (tx, audit) => {
    await tx.sectorSubjects.rotateSectorSubject(
      subjectSecret,
      sectorId,
      { kind: 'ACCOUNT', id: accountId },
      clock,
    );
    // After the rotation: a session issued meanwhile under the old subject is revoked too.
    const ended = await tx.accountPage.revokeSectorSessions(accountId, sectorId, new Date(clock()));
    audit.record({
      action: 'account.reset_subject',
      target: { type: 'account', id: accountId },
      changes: { sectorId: changed(null, sectorId), revokedSessions: changed(null, ended) },
    });
    return ended;
  });
  await ports.issuance.sessionEvents.publishSessionChanges(revoked);
  return 'reset';
}

/** A passkey name: trimmed, 1 to 64 characters, no control characters. */
export function validPasskeyName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const name = raw.trim();
  return name.length >= 1 && [...name].length <= 64 && !/\p{Cc}/u.test(name) ? name : undefined;
}

export async function renamePasskey(
  store: AccountPageStore,
  accountId: string,
  passkeyId: string,
  rawName: unknown,
): Promise<'renamed' | 'invalid' | 'not_found'> {
  const name = validPasskeyName(rawName);
  if (!name) return 'invalid';
  if (!UUID.test(passkeyId)) return 'not_found';
  return (await store.renamePasskey(accountId, passkeyId, name)) ? 'renamed' : 'not_found';
}

/**
 * Removal needs a recent sign-in (recentlyAuthenticated); without one nothing changes: 'confirm_first'. The sessions
 * a removal revoked are announced on the session-change channel, so no replica's cache keeps answering for them;
 * `authorityVersion` is the account's version after this removal (the page keeps its own session under it).
 */
export async function removePasskey(
  ports: Pick<ConnectPorts, 'accountPage' | 'issuance' | 'accountChanges'>,
  clock: Clock,
  accountId: string,
  passkeyId: string,
  recentSignIn: boolean,
  request: PersonRequest = {},
): Promise<RemoveResult | { outcome: 'confirm_first' }> {
  if (!recentSignIn) return { outcome: 'confirm_first' };
  if (!UUID.test(passkeyId)) return { outcome: 'not_found' satisfies RemoveOutcome };
  const result = await ports.accountChanges.as(personActor(accountId, request)).run(async (tx, audit) => {
    const removal = await tx.accountPage.removePasskey(accountId, passkeyId, new Date(clock()));
    if (removal.outcome === 'removed') {
      audit.record({
        action: 'passkey.remove',
        target: { type: 'account', id: accountId },
        changes: {
          passkeyId: changed(passkeyId, null),
          authorityVersion: changed(removal.authorityVersion - 1, removal.authorityVersion),
          revokedSessions: changed(null, removal.revoked),
        },
      });
    }
    return removal;
  });
  if (result.outcome === 'removed') await ports.issuance.sessionEvents.publishSessionChanges(result.revoked);
  return result;
}

/** The identifier-reset form: only once confirmed ('needs_confirm'), for a sector id ('ignored' otherwise). */
export type ResetFormOutcome =
  | { outcome: 'needs_confirm' | 'ignored' | 'not_used' | 'limited' }
  | { outcome: 'reset'; sector: SectorEntry | undefined };

export async function resetFromAccountPage(
  ports: Pick<ConnectPorts, 'accountPage' | 'issuance' | 'resetLimit' | 'accountChanges'>,
  values: { subjectSecret: string; clock: Clock },
  accountId: string,
  sectorId: string,
  confirm: string | undefined,
  request: PersonRequest = {},
): Promise<ResetFormOutcome> {
  if (confirm !== 'yes') return { outcome: 'needs_confirm' };
  if (!UUID.test(sectorId)) return { outcome: 'ignored' };
  const sector = (await accountOverview(ports.accountPage, accountId)).sectors.find((s) => s.id === sectorId);
  const outcome = await resetSectorIdentifier(ports, values, accountId, sectorId, request);
  return outcome === 'reset' ? { outcome, sector } : { outcome };
}

/**
 * The remove form: removePasskey, and once removed, this session (which made the change) stays signed in under
 * the version it left (its own transaction's) while every other sign-in of the account is out; removing the
 * passkey it signed in with keeps it too (it proved itself and chose to).
 */
export async function removeFromAccountPage(
  ports: Pick<ConnectPorts, 'accountPage' | 'issuance' | 'accountChanges'>,
  values: { clock: Clock; reauthSeconds: number },
  session: AccountSession,
  accountId: string,
  passkeyId: string,
  request: PersonRequest = {},
): Promise<RemoveOutcome | 'confirm_first'> {
  const recent = recentlyAuthenticated(session.authTime, values.clock(), values.reauthSeconds);
  const removal = await removePasskey(ports, values.clock, accountId, passkeyId, recent, request);
  if (removal.outcome === 'removed') {
    session.authorityVersion = removal.authorityVersion;
    if (session.passkeyId === passkeyId) delete session.passkeyId;
  }
  return removal.outcome;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
