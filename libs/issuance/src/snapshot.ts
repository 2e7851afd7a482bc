// One round trip for everything the issuance checks read about an account under an application: profile and
// status, its email-domain standing, whether it holds a receipt at the current terms epoch, and its claim grants.
// Hot paths (refresh, direct issue) embed it in their one read.
import { type Db, runPrepared, type Statement } from '@svc/db';
import { type ClaimGrants, isClaimKey } from '@svc/token-core';
import type { AccountProfile } from './claim-state';
import {
  EMAIL_DOMAIN_COLUMNS_SQL,
  type EmailDomainColumns,
  type EmailDomainStanding,
  toEmailDomainStanding,
} from './email-domain';
import { type CurrentTerms, currentTerms } from './terms';

export interface IssuanceSnapshot {
  account: AccountProfile | null;
  hasReceipt: boolean;
  grants: ClaimGrants;
  /** Null unless the account's email domain has a BLOCK or REQUIRE_SSO policy. */
  emailDomain: EmailDomainStanding | null;
}

/** The snapshot's columns as returned by `snapshotColumnsSql`. */
export interface SnapshotRow extends EmailDomainColumns {
  account_id: string | null;
  account_status: AccountProfile['status'] | null;
  email: string | null;
  email_verified: boolean;
  given_name: string | null;
  family_name: string | null;
  picture: string | null;
  picture_animated: string | null;
  authority_version: number;
  has_receipt: boolean;
  grants: Record<string, string> | null;
}

/**
 * The snapshot as select-list items over an `accounts a` in scope, for an application id and a terms epoch given as
 * SQL expressions; refresh embeds it in its one read, issuance runs it alone.
 */
export function snapshotColumnsSql(applicationId: string, epoch: string): string {
  return `a.id AS account_id, a.status AS account_status, a.email, a.email_verified, a.given_name, a.family_name,
    a.picture, a.picture_animated, a.authority_version,
    ${EMAIL_DOMAIN_COLUMNS_SQL},
    EXISTS (SELECT 1 FROM agreement_receipts r WHERE r.account_id = a.id AND r.document_type = 'BASIC_TERMS'
            AND r.acceptance_epoch >= ${epoch}) AS has_receipt,
    (SELECT json_object_agg(g.claim, g.state) FROM claim_grants g
      WHERE g.account_id = a.id AND g.application_id = ${applicationId}) AS grants`;
}

const SNAPSHOT: Statement = {
  name: 'issuance_snapshot_v2',
  text: `SELECT ${snapshotColumnsSql('$2::uuid', '$3::int')} FROM accounts a WHERE a.id = $1::uuid`,
};

/** Reads the snapshot columns of a row (null account when the account does not exist). */
export function toSnapshot(row: SnapshotRow | undefined, terms: CurrentTerms | undefined): IssuanceSnapshot {
  if (!row?.account_id || !row.account_status)
    return { account: null, hasReceipt: false, grants: {}, emailDomain: null };
  const grants: ClaimGrants = {};
  for (const [claim, state] of Object.entries(row.grants ?? {})) {
    if (isClaimKey(claim) && (state === 'GRANTED' || state === 'DENIED')) grants[claim] = state;
  }
  return {
    account: {
      id: row.account_id,
      status: row.account_status,
      email: row.email,
      emailVerified: row.email_verified,
      givenName: row.given_name,
      familyName: row.family_name,
      picture: row.picture,
      pictureAnimated: row.picture_animated,
      authorityVersion: row.authority_version,
    },
    hasReceipt: !terms || row.has_receipt,
    grants,
    emailDomain: toEmailDomainStanding(row),
  };
}

export async function loadIssuanceSnapshot(
  db: Db,
  accountId: string,
  applicationId: string,
  terms: CurrentTerms | undefined,
): Promise<IssuanceSnapshot> {
  const rows = await runPrepared<SnapshotRow>(db, SNAPSHOT, [
    accountId,
    applicationId,
    terms?.acceptanceEpoch ?? 0,
  ]);
  return toSnapshot(rows[0], terms);
}

const termsCaches = new WeakMap<Db, { at: number; value: Promise<CurrentTerms | undefined> }>();

/**
 * The current terms, cached in process for TERMS_CACHE_MS (default 1000 ms; 0 under test): a new revision is
 * enforced everywhere within that window.
 */
export function currentTermsCached(db: Db): Promise<CurrentTerms | undefined> {
  const ttl = Number(process.env.TERMS_CACHE_MS ?? (process.env.NODE_ENV === 'test' ? 0 : 1000));
  const hit = termsCaches.get(db);
  if (ttl > 0 && hit && Date.now() - hit.at < ttl) return hit.value;
  const value = currentTerms(db);
  termsCaches.set(db, { at: Date.now(), value });
  value.catch(() => termsCaches.delete(db));
  return value;
}
