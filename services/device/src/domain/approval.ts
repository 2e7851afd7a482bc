// What the approval page (GET/POST {DEVICE_URL}/device) decides with, free of HTTP: find the live pending
// authorization a typed user code names, then approve it for the signed-in account or deny it. Denial is final.
// Each decision marks the polling state in Redis first ("ask PostgreSQL") and then writes PostgreSQL, so a poll
// can never miss a decision; the mark alone changes nothing (PostgreSQL still says PENDING).
import { normalizeUserCode, type PendingRow } from '@svc/device-grant';
import type { DeviceDeps } from '../deps';
import { DEVICE_AUTH_METHOD } from './authorize';

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
  /** The consent decisions made on the page, per claim, kept with the authorization as a record. */
  consent?: Record<string, 'GRANTED' | 'DENIED'>;
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
export async function findPendingAuthorization(deps: DeviceDeps, typed: string): Promise<FindOutcome> {
  const userCode = normalizeUserCode(typed);
  if (!userCode) return { kind: 'malformed' };
  const row = await deps.authorizations.pendingByUserCode(userCode, new Date(deps.issuance.clock()));
  return row ? { kind: 'found', authorization: view(row) } : { kind: 'not_found' };
}

/** The authorization by id while it is still pending and live (the page keeps the id between its steps). */
export async function pendingAuthorizationById(
  deps: DeviceDeps,
  id: string,
): Promise<PendingAuthorization | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const row = await deps.authorizations.pendingById(id, new Date(deps.issuance.clock()));
  return row ? view(row) : undefined;
}

/**
 * PENDING -> APPROVED for the signed-in account; the next poll redeems it. 'gone' when it is no longer pending
 * (decided meanwhile, expired): the page says so and changes nothing.
 */
export async function approveDeviceAuthorization(
  deps: DeviceDeps,
  id: string,
  input: ApprovalInput,
): Promise<DecisionOutcome> {
  const row = await pendingOrUndefined(deps, id);
  if (!row) return 'gone';
  await deps.polling.markDeciding(row.deviceCodeHash, row.expiresAt);
  const approved = await deps.authorizations.approve(
    row.id,
    {
      accountId: input.accountId,
      authMethod: DEVICE_AUTH_METHOD,
      authTime: input.authTime,
      authorityVersion: input.authorityVersion,
      consent: input.consent ?? null,
      amr: [...(input.amr ?? [])],
      acr: input.acr ?? null,
    },
    new Date(deps.issuance.clock()),
  );
  return approved ? 'approved' : 'gone';
}

/** PENDING -> DENIED, final: the device's next poll gets access_denied. */
export async function denyDeviceAuthorization(deps: DeviceDeps, id: string): Promise<DecisionOutcome> {
  const row = await pendingOrUndefined(deps, id);
  if (!row) return 'gone';
  await deps.polling.markDeciding(row.deviceCodeHash, row.expiresAt);
  const denied = await deps.authorizations.deny(row.id, new Date(deps.issuance.clock()));
  if (!denied) return 'gone';
  await deps.polling.markFinal(row.deviceCodeHash, 'denied', row.expiresAt).catch(() => undefined);
  return 'denied';
}

function pendingOrUndefined(deps: DeviceDeps, id: string): Promise<PendingRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    return Promise.resolve(undefined);
  return deps.authorizations.pendingById(id, new Date(deps.issuance.clock()));
}
