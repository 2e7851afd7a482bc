// What the approval page (GET/POST {DEVICE_URL}/device) decides with, free of HTTP: count and look up a typed user
// code, the authorization a browser's flow still has selected (with its application), then approve it for the
// signed-in account or deny it. Denial is final. Each decision marks the polling state in Redis first ("ask
// PostgreSQL") and then writes PostgreSQL, so a poll can never miss a decision; the mark alone changes nothing
// (PostgreSQL still says PENDING).
import { normalizeUserCode, type PendingRow } from '@svc/device-grant';
import type { ApplicationContext } from '@svc/issuance';
import { countCredentialAttempt, ServiceError, toleratedRedisFailure } from '@svc/platform';
import { CLAIM_KEYS, type ClaimView } from '@svc/token-core';
import { DEVICE_AUTH_METHOD } from './authorize';
import type { DeviceDomain } from './ports';

/** A live pending authorization, as the confirmation screen shows it: the stored row without its device code hash. */
export type PendingAuthorization = Omit<PendingRow, 'deviceCodeHash'>;

export type FindOutcome =
  | { kind: 'found'; authorization: PendingAuthorization }
  /** Not a user code at all (counts as a guess all the same). */
  | { kind: 'malformed' }
  /** Well-formed, but no live pending authorization has it (unknown, expired, decided or consumed). */
  | { kind: 'not_found' };

export interface ApprovalInput {
  /** The signed-in account approving. */
  accountId: string;
  /** The account's authority version when the person signed in; a change before redemption denies. */
  authorityVersion: number;
  /** When the person authenticated (the session's auth_time). */
  authTime: Date;
  /** The claim view the person went through on the page: its consent decisions are kept as a record. */
  view?: ClaimView;
  /** RFC 8176 references and acr of that sign-in (libs/signin): an OIDC device grant's ID token states them. */
  amr?: readonly string[];
  acr?: string;
}

export type DecisionOutcome = 'approved' | 'denied' | 'gone';

const view = ({ deviceCodeHash: _, ...shown }: PendingRow): PendingAuthorization => shown;

/**
 * The live pending authorization a typed user code names: case, spaces and hyphens ignored, O read as 0 and I or L
 * as 1. The page limits guesses per client address and per account before calling this (RFC 8628 section 5.1).
 */
export async function findPendingAuthorization(deps: DeviceDomain, typed: string): Promise<FindOutcome> {
  const userCode = normalizeUserCode(typed);
  if (!userCode) return { kind: 'malformed' };
  const row = await deps.ports.authorizations.pendingByUserCode(userCode, new Date(deps.issuance.clock()));
  return row ? { kind: 'found', authorization: view(row) } : { kind: 'not_found' };
}

/**
 * A user code typed on the page. RFC 8628 section 5.1: every entry counts, right, wrong or malformed, per client
 * address and per signed-in account, before anything is looked up (past the limit: TooManyAttempts, counted
 * `limited`). Fleet-wide, credential_attempts_total counts how each was decided: a guesser spread over many addresses
 * passes every per-address limit.
 */
export async function enterUserCode(
  deps: DeviceDomain,
  entry: { typed: string; address: string; accountId: string | undefined },
): Promise<FindOutcome> {
  const { perAddress, perAccount } = deps.ports.userCodeGuesses;
  try {
    await perAddress.consume(entry.address);
    if (entry.accountId) await perAccount.consume(entry.accountId);
  } catch (err) {
    if (err instanceof ServiceError && err.reason === 'TooManyAttempts')
      countCredentialAttempt(deps.metrics, 'device_user_code', 'limited');
    throw err;
  }
  const found = await findPendingAuthorization(deps, entry.typed);
  countCredentialAttempt(deps.metrics, 'device_user_code', found.kind === 'found' ? 'accepted' : 'rejected');
  return found;
}

/**
 * The authorization a browser's flow selected, with its application as it is now, while the authorization is still
 * pending and live; undefined once it was decided, expired or consumed (or its application is gone).
 */
export async function selectedAuthorization(
  deps: DeviceDomain,
  id: string,
): Promise<{ authorization: PendingAuthorization; app: ApplicationContext } | undefined> {
  const authorization = await pendingAuthorizationById(deps, id);
  if (!authorization) return undefined;
  const app = await deps.issuance.ports.applications.loadApplication({ id: authorization.applicationId });
  return app ? { authorization, app } : undefined;
}

/** The authorization by id while it is still pending and live (the page keeps the id between its steps). */
export async function pendingAuthorizationById(
  deps: DeviceDomain,
  id: string,
): Promise<PendingAuthorization | undefined> {
  const row = await pendingOrUndefined(deps, id);
  return row ? view(row) : undefined;
}

/** The consent decisions of a claim view, per claim (GRANTED or DENIED; claims not decided are left out). */
function consentOf(claims: ClaimView): Record<string, 'GRANTED' | 'DENIED'> {
  const consent: Record<string, 'GRANTED' | 'DENIED'> = {};
  for (const key of CLAIM_KEYS) {
    const state = claims[key].state;
    if (state === 'GRANTED' || state === 'DENIED') consent[key] = state;
  }
  return consent;
}

/**
 * PENDING -> APPROVED for the signed-in account; the next poll redeems it. 'gone' when it is no longer pending
 * (decided meanwhile, expired): the page says so and changes nothing.
 */
export async function approveDeviceAuthorization(
  deps: DeviceDomain,
  id: string,
  input: ApprovalInput,
): Promise<DecisionOutcome> {
  const row = await pendingOrUndefined(deps, id);
  if (!row) return 'gone';
  await deps.ports.polling.markDeciding(row.deviceCodeHash, row.expiresAt);
  const approved = await deps.ports.authorizations.approve(
    row.id,
    {
      accountId: input.accountId,
      authMethod: DEVICE_AUTH_METHOD,
      authTime: input.authTime,
      authorityVersion: input.authorityVersion,
      consent: input.view ? consentOf(input.view) : null,
      amr: [...(input.amr ?? [])],
      acr: input.acr ?? null,
    },
    new Date(deps.issuance.clock()),
  );
  return approved ? 'approved' : 'gone';
}

/** PENDING -> DENIED, final: the device's next poll gets access_denied. */
export async function denyDeviceAuthorization(deps: DeviceDomain, id: string): Promise<DecisionOutcome> {
  const row = await pendingOrUndefined(deps, id);
  if (!row) return 'gone';
  await deps.ports.polling.markDeciding(row.deviceCodeHash, row.expiresAt);
  const denied = await deps.ports.authorizations.deny(row.id, new Date(deps.issuance.clock()));
  if (!denied) return 'gone';
  await deps.ports.polling
    .markFinal(row.deviceCodeHash, 'denied', row.expiresAt)
    .catch(toleratedRedisFailure(deps.metrics, 'device_poll_mark_final', undefined));
  return 'denied';
}

function pendingOrUndefined(deps: DeviceDomain, id: string): Promise<PendingRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    return Promise.resolve(undefined);
  return deps.ports.authorizations.pendingById(id, new Date(deps.issuance.clock()));
}
