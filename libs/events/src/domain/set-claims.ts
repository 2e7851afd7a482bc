// The claims of a Security Event Token (RFC 8417) built from an outbox row's payload: iss, aud, iat, jti, txn and
// one CAEP / RISC event whose subject is the pairwise sector subject in the opaque format.
import { EVENT_TYPE_URIS, type EventName, type SessionRevokedReason } from './event-types';

/** What the outbox row of a security event carries (JSON; never a secret). */
export interface SecurityEventPayload {
  event: EventName;
  /** The pairwise sector subject the application knows the person by (for identifier-changed: the old one). */
  subject: string;
  /** session-revoked: the session id (the tokens' sid) and why. */
  sid?: string;
  reason?: SessionRevokedReason;
  /** credential-change: a passkey added (create) or removed (delete). */
  changeType?: 'create' | 'delete';
}

export interface SetRow {
  /** The outbox row id: the SET's jti, the same on every redelivery. */
  id: string;
  payload: SecurityEventPayload;
  txn: string | null;
  /** When the change committed (the row was written): iat and event_timestamp. */
  createdAt: Date;
}

export function eventMember(p: SecurityEventPayload, at: number): Record<string, unknown> {
  const subject = { format: 'opaque', id: p.subject };
  switch (p.event) {
    case 'session-revoked':
      return { subject, sid: p.sid, reason: p.reason, event_timestamp: at };
    case 'credential-change':
      return {
        subject,
        credential_type: 'fido2-platform',
        change_type: p.changeType ?? 'update',
        event_timestamp: at,
      };
    case 'account-disabled':
    case 'account-enabled':
    case 'identifier-changed':
      return { subject, event_timestamp: at };
  }
}

/** The SET's claims, in a fixed order; the caller signs them as this JSON. */
export function setClaims(row: SetRow, c: { issuer: string; audience: string }): Record<string, unknown> {
  const iat = Math.floor(row.createdAt.getTime() / 1000);
  return {
    iss: c.issuer,
    aud: c.audience,
    iat,
    jti: row.id,
    txn: row.txn ?? row.id,
    events: { [EVENT_TYPE_URIS[row.payload.event]]: eventMember(row.payload, iat) },
  };
}
