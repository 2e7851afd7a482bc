// What this process last checked and wrote for a session it rotated: the version it made current, the session's
// values a pair is minted from, and the state the issuance checks passed on. A refresh presenting exactly that
// version then rotates in one statement (store/checked-rotation.ts), which writes only while that state is still
// PostgreSQL's; on any difference, or with nothing remembered (another replica rotated it, the entry was evicted),
// the refresh reads and decides in full. Nothing here is trusted on its own: it only says which state the write
// must find, so a stale entry costs a round trip, never a check.
import type { ClaimView } from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import type { IssuanceSnapshot, RotationSession } from './store/issuance-reads';

export interface CheckedRotation {
  /** The version this process's write made current, and its jti. */
  version: number;
  jti: string;
  /** The application the checks ran against. */
  app: ApplicationContext;
  /** Its claim requirements as JSON: an application reloaded since (the cache's TTL) still matches by value. */
  requirements: string;
  /** The terms epoch the receipt check ran at (null: no terms). */
  epoch: number | null;
  session: RotationSession;
  snapshot: IssuanceSnapshot;
  claims: ClaimView;
}

/** At most this many sessions remembered; the oldest written goes first. */
const MAX_ENTRIES = 10_000;
const entries = new Map<string, CheckedRotation>();

export function checkedRotationOf(sid: string): CheckedRotation | undefined {
  return entries.get(sid);
}

/**
 * Whether an application is, for a rotation's checks and minting, the one an entry was checked against: the same
 * object, or the same application reloaded with the same claim requirements (its status is checked by the caller).
 */
export function sameCheckedApplication(entry: CheckedRotation, app: ApplicationContext): boolean {
  if (entry.app === app) return true;
  return (
    entry.app.id === app.id &&
    entry.app.anchor === app.anchor &&
    entry.requirements === JSON.stringify(app.claimRequirements)
  );
}

export function rememberCheckedRotation(entry: CheckedRotation): void {
  entries.delete(entry.session.id);
  entries.set(entry.session.id, entry);
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
}

/** Forgets a session, unless its entry has moved past `version` meanwhile (a concurrent rotation's). */
export function forgetCheckedRotation(sid: string, version?: number): void {
  const entry = entries.get(sid);
  if (entry && (version === undefined || entry.version === version)) entries.delete(sid);
}

/**
 * PostgreSQL's clock minus this process's, as last seen (statement start against the answer's arrival, so never
 * more than the truth: a deadline computed with it falls early, and a write that misses it is only re-decided).
 */
let dbClockLeadMs: number | undefined;

export function observeDbClock(statementStart: Date, arrivedAt: number): void {
  dbClockLeadMs = statementStart.getTime() - arrivedAt;
}

/** The PostgreSQL instant `ms` from now, by this process's clock; undefined before any observation. */
export function dbInstantIn(ms: number): Date | undefined {
  return dbClockLeadMs === undefined ? undefined : new Date(Date.now() + dbClockLeadMs + ms);
}
