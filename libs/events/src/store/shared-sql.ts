// The SQL other stores embed to write outbox rows in the statement (or transaction) of the change that causes them
// (`@svc/events/shared-sql`): only subscribed applications get rows, one per (application, event), and a change
// that touches no subscribed application costs one index probe of event_subscriptions per changed row.
import {
  BACKCHANNEL_LOGOUT_KIND,
  type EventName,
  FORM_CONTENT_TYPE,
  SECURITY_EVENT_KIND,
  SET_CONTENT_TYPE,
} from '../domain/event-types';

/**
 * The txn of rows an audited change writes (libs/provisioning's stores, inside `changes.run`): a placeholder naming
 * the transaction, replaced by the change's audit row id before commit (libs/audit's runAudited).
 */
export const EVENT_TXN_OF_TRANSACTION = `'txid:' || txid_current()::text`;

interface OutboxSelect {
  event: EventName;
  /** FROM items; `sub` (the subscription) is joined to them. */
  from: string;
  /** The application id expression the subscription is joined on. */
  application: string;
  /** The pairwise subject expression. */
  subject: string;
  /** Further payload members: `'sid', r.id, 'reason', $4::text`. */
  payload?: string;
  /** The txn expression (the change's audit row id, or an id the change's rows share). */
  txn: string;
  where?: string;
}

/** `INSERT INTO event_outbox ... SELECT ...`: the rows of one event for every subscribed application of `from`. */
export function outboxInsertSql(o: OutboxSelect): string {
  const payload = `jsonb_build_object('event', '${o.event}', 'subject', ${o.subject}${o.payload ? `, ${o.payload}` : ''})`;
  return `INSERT INTO event_outbox (application_id, kind, target_url, content_type, payload, txn)
    SELECT sub.application_id, '${SECURITY_EVENT_KIND}', sub.url, '${SET_CONTENT_TYPE}', ${payload}, ${o.txn}
    FROM ${o.from} JOIN event_subscriptions sub ON sub.application_id = ${o.application}
    WHERE (cardinality(sub.events) = 0 OR '${o.event}' = ANY(sub.events))${o.where ? ` AND (${o.where})` : ''}`;
}

/**
 * The back-channel logout rows (OIDC Back-Channel Logout 1.0) of the OIDC sessions among `from` (alias r): one per
 * (client, sign-in sid) for each active client that registered a backchannel_logout_uri.
 */
function backchannelLogoutSelect(from: string, reason: string, txn: string): string {
  return `SELECT DISTINCT r.application_id, '${BACKCHANNEL_LOGOUT_KIND}', c.backchannel_logout_uri,
      '${FORM_CONTENT_TYPE}', jsonb_build_object('clientId', c.client_id, 'subject', r.subject, 'sid', o.id_token_sid),
      ${txn}
    FROM ${from} r JOIN oidc_sessions o ON o.sid = r.id JOIN oidc_clients c ON c.id = o.oidc_client_id
    WHERE c.backchannel_logout_uri IS NOT NULL AND c.status = 'ACTIVE' AND o.id_token_sid IS NOT NULL
      AND ${reason} IS NOT NULL`;
}

/**
 * session-revoked for each row of `from` (a CTE of revoked sessions with id, application_id, subject; alias r),
 * with the event reason and txn expressions given; and, in the same INSERT, a logout token for each OIDC session
 * among them whose client registered a back-channel logout URI (every way a session ends with a reason: logout,
 * revoke-all, reuse, a removed passkey, an identifier reset, a suspension, an operator).
 */
export function sessionRevokedOutboxSql(from: string, reason: string, txn: string): string {
  return `${outboxInsertSql({
    event: 'session-revoked',
    from: `${from} r`,
    application: 'r.application_id',
    subject: 'r.subject',
    payload: `'sid', r.id, 'reason', ${reason}`,
    txn,
    where: `${reason} IS NOT NULL`,
  })}
    UNION ALL ${backchannelLogoutSelect(from, reason, txn)}`;
}

/**
 * An account-wide event (credential-change, account-disabled, account-enabled) for every subscribed application
 * that knows the account: each application of a sector where it has a current pairwise subject.
 */
export function accountEventOutboxSql(
  event: EventName,
  account: string,
  txn: string,
  payload?: string,
): string {
  return outboxInsertSql({
    event,
    from: `sector_subjects ss JOIN applications a ON a.sector_id = ss.sector_id`,
    application: 'a.id',
    subject: 'ss.subject',
    payload,
    txn,
    where: `ss.principal_kind = 'ACCOUNT' AND ss.principal_id = ${account} AND ss.retired_at IS NULL`,
  });
}

/** identifier-changed, carrying the retired subject, for every subscribed application of its sector. */
export function identifierChangedOutboxSql(retiredSubjectId: string, txn: string): string {
  return outboxInsertSql({
    event: 'identifier-changed',
    from: `sector_subjects ss JOIN applications a ON a.sector_id = ss.sector_id`,
    application: 'a.id',
    subject: 'ss.subject',
    txn,
    where: `ss.id = ${retiredSubjectId} AND ss.principal_kind = 'ACCOUNT'`,
  });
}
