// The events an application can subscribe to, their OpenID Shared Signals (CAEP / RISC) event-type URIs, and the
// reasons a session-revoked event names (CONTRACTS "Events to applications").

export const EVENT_NAMES = [
  'session-revoked',
  'credential-change',
  'account-disabled',
  'account-enabled',
  'identifier-changed',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';

/** The exact event-type URI of each event (the one member of a SET's `events`). */
export const EVENT_TYPE_URIS: Record<EventName, string> = {
  'session-revoked': `${CAEP}session-revoked`,
  'credential-change': `${CAEP}credential-change`,
  'account-disabled': `${RISC}account-disabled`,
  'account-enabled': `${RISC}account-enabled`,
  'identifier-changed': `${RISC}identifier-changed`,
};

export const SESSION_REVOKED_REASONS = [
  'logout',
  'revoke_all',
  'reuse_detected',
  'credential_removed',
  'identifier_reset',
  'account_suspended',
  'operator',
] as const;
export type SessionRevokedReason = (typeof SESSION_REVOKED_REASONS)[number];

/**
 * The session-revoked reason for a session's `revoked_reason` as the hosts record it; a revocation whose reason is
 * not here (a sweep's expiry, say) causes no event. Kept beside the store statement that reads it.
 */
export const REVOCATION_EVENT_REASONS: Readonly<Record<string, SessionRevokedReason>> = {
  logout: 'logout',
  revoke_all: 'revoke_all',
  compromised: 'reuse_detected',
  code_replayed: 'reuse_detected',
  oidc_revocation: 'logout',
  authority_changed: 'credential_removed',
  subject_reset: 'identifier_reset',
  account_suspended: 'account_suspended',
  operator: 'operator',
};

export function isEventName(value: string): value is EventName {
  return (EVENT_NAMES as readonly string[]).includes(value);
}

/** The outbox row kind of a Security Event Token to an application's subscription. */
export const SECURITY_EVENT_KIND = 'security-event';
export const SET_CONTENT_TYPE = 'application/secevent+jwt';
export const SET_TYP = 'secevent+jwt';

/** The outbox row kind of an OIDC Back-Channel Logout 1.0 logout token to a client's backchannel_logout_uri. */
export const BACKCHANNEL_LOGOUT_KIND = 'backchannel-logout';
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
export const LOGOUT_TOKEN_TYP = 'logout+jwt';
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** How long a logout token is valid from its signing (at each delivery attempt). */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;
