// POST /device-token: a poll of a device authorization, answered as an outcome the route maps to the spec's
// bodies. A pending poll is one Redis script (store/polling.ts) and nothing else; PostgreSQL answers only when
// Redis cannot: a decision was (being) made, or Redis lost the state. An approved authorization is redeemed
// through the issuance core, which re-checks the application, the account and its basic-terms receipt now, and
// consumes the authorization in the statement that inserts the session: exactly one poll gets the tokens.
import { type AuthorizationRow, deviceCodeHash, SLOW_DOWN_STEP_SECONDS } from '@svc/device-grant';
import { isIssuable, issueSession } from '@svc/issuance';
import { isDependencyFailure, ServiceError, toleratedRedisFailure } from '@svc/platform';
import type { ClaimView } from '@svc/token-core';
import { DEVICE_AUTH_METHOD } from './authorize';
import type { DeviceDomain } from './ports';

export interface DeviceTokenResponse {
  applicationAnchor: string;
  accessToken: string;
  refreshToken: string;
  claims: ClaimView;
}

/**
 * The spec's device polling errors (Errors, device polling errors). RFC 6749 section 5.2 / RFC 8628 section 3.5:
 * their statuses are the OAuth table's (400; a failed issuance is the server's, 500, the spec's server_error: "stop
 * polling and start a new authorization"; an outage of PostgreSQL or Redis is the same code in the table's `outage`
 * variant, a 503 with Retry-After the client waits out).
 */
export const DEVICE_POLL_ERRORS = [
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
  'invalid_request',
  'server_error',
] as const;

export type DevicePollError = (typeof DEVICE_POLL_ERRORS)[number];

export type PollOutcome =
  | { kind: 'issued'; tokens: DeviceTokenResponse }
  | { kind: 'error'; error: DevicePollError; interval?: number; retryAfter?: number };

const fail = (error: DevicePollError): PollOutcome => ({ kind: 'error', error });

/**
 * One poll. `clientAddress` is counted only when Redis does not know the code: those polls read PostgreSQL, so
 * past DEVICE_RATE_UNKNOWN_PER_ADDRESS of them an address is told to slow down without PostgreSQL being asked
 * (an invented code learns nothing from it; a real one whose state Redis lost is answered again later).
 */
export async function pollDeviceToken(
  deps: DeviceDomain,
  deviceCode: string,
  clientAddress: string,
): Promise<PollOutcome> {
  const hash = deviceCodeHash(deviceCode);
  const verdict = await deps.ports.polling.poll(hash, new Date(deps.issuance.clock()));
  switch (verdict.kind) {
    case 'pending':
      return fail('authorization_pending');
    case 'slow_down':
      return { kind: 'error', error: 'slow_down', interval: verdict.interval };
    case 'expired':
      return fail('expired_token');
    case 'consumed':
    // An OIDC client's code (its codes are malformed here anyway): not this wire's.
    case 'foreign':
      return fail('invalid_request');
    case 'denied':
      return fail('access_denied');
    case 'ask':
      return fromDatabase(deps, hash);
    case 'unknown':
      try {
        await deps.ports.unknownCodeLimit.consume(clientAddress);
      } catch (err) {
        if (err instanceof ServiceError && err.reason === 'TooManyAttempts') {
          return {
            kind: 'error',
            error: 'slow_down',
            interval: deps.config.pollIntervalSeconds + SLOW_DOWN_STEP_SECONDS,
          };
        }
        throw err;
      }
      return fromDatabase(deps, hash);
  }
}

/** The answer PostgreSQL gives when Redis could not: a decision, or a state Redis lost. */
async function fromDatabase(deps: DeviceDomain, hash: string): Promise<PollOutcome> {
  const row = await deps.ports.authorizations.byCodeHash(hash);
  // An authorization started at the OIDC host redeems there only (its codes are malformed here anyway).
  if (!row || row.oidcClientId !== null) return fail('invalid_request');
  if (row.state === 'CONSUMED') return fail('invalid_request');
  const now = new Date(deps.issuance.clock());
  if (row.expiresAt <= now) return fail('expired_token');
  switch (row.state) {
    case 'DENIED':
      await deps.ports.polling.markFinal(hash, 'denied', row.expiresAt);
      return fail('access_denied');
    case 'PENDING':
      // Redis lost the state (or a decision is being written and the poll script saw its mark first): seed it
      // again from the row, counting this poll; a decision mark already there stays.
      await deps.ports.polling.reseed(hash, row.interval, row.expiresAt, now);
      return fail('authorization_pending');
    case 'APPROVED':
      return redeem(deps, hash, row);
  }
}

/** Refusals of the issuance core that mean the person or policy no longer allows this: access_denied, final. */
const POLICY_REFUSALS = new Set([
  'ApplicationNotFound',
  'ApplicationNotActive',
  'AccountNotFound',
  'AccountDisabled',
  'AccountDeleted',
  'LegalAgreementRequired',
  'ClaimConsentRequired',
  'RequiredClaimDataMissing',
  'EmailDomainBlocked',
  'EmailDomainRequiresSso',
  'SsoAuthorityConflict',
  'Layer1Denied',
  'Layer3Denied',
]);

async function denyAtRedemption(
  deps: DeviceDomain,
  hash: string,
  row: AuthorizationRow,
): Promise<PollOutcome> {
  await deps.ports.authorizations.deny(row.id, new Date(deps.issuance.clock()), ['APPROVED']);
  await deps.ports.polling.markFinal(hash, 'denied', row.expiresAt);
  return fail('access_denied');
}

async function redeem(deps: DeviceDomain, hash: string, row: AuthorizationRow): Promise<PollOutcome> {
  // The application's standing now, not as cached: it may have been suspended since the approval.
  const app = await deps.issuance.ports.applications.loadApplication({ id: row.applicationId });
  if (
    !app ||
    !isIssuable(app) ||
    !app.authRules.some((r) => r.method === DEVICE_AUTH_METHOD) ||
    !row.accountId ||
    row.authorityVersion === null
  ) {
    return denyAtRedemption(deps, hash, row);
  }
  try {
    const issued = await issueSession(deps.issuance, {
      application: app,
      principal: { kind: 'ACCOUNT', accountId: row.accountId },
      authMethod: row.authMethod ?? DEVICE_AUTH_METHOD,
      authTime: row.authTime ?? undefined,
      expectedAuthorityVersion: row.authorityVersion,
      redeemsDeviceAuthorization: { id: row.id },
    });
    // PostgreSQL holds the consumption; Redis answers the later polls without asking it (best effort: without
    // the mark, PostgreSQL answers them the same).
    await deps.ports.polling
      .markFinal(hash, 'consumed', row.expiresAt)
      .catch(toleratedRedisFailure(deps.metrics, 'device_poll_mark_final', undefined));
    return {
      kind: 'issued',
      tokens: {
        applicationAnchor: app.anchor,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        claims: issued.claims,
      },
    };
  } catch (err) {
    return lostRedemption(deps, hash, row, err);
  }
}

/**
 * Why issuance wrote nothing: a concurrent poll consumed it, it expired, or policy refuses; an outage of PostgreSQL or
 * Redis (server_error with Retry-After: wait and poll again); else issuance failed (server_error: start again).
 */
async function lostRedemption(
  deps: DeviceDomain,
  hash: string,
  row: AuthorizationRow,
  err: unknown,
): Promise<PollOutcome> {
  if (err instanceof ServiceError && err.reason === 'AuthorizationArtifactStale') {
    const current = await deps.ports.authorizations.byCodeHash(hash);
    if (!current || current.state === 'CONSUMED') return fail('invalid_request');
    if (current.expiresAt <= new Date(deps.issuance.clock())) return fail('expired_token');
    if (current.state === 'DENIED') return fail('access_denied');
    // Still approved: the account's authority changed since the approval (status, passkeys). Approve again.
    return denyAtRedemption(deps, hash, row);
  }
  if (err instanceof ServiceError && POLICY_REFUSALS.has(err.reason))
    return denyAtRedemption(deps, hash, row);
  if (isDependencyFailure(err)) {
    // PostgreSQL or Redis is out (also behind a TemporarilyUnavailable that names it as its cause): an outage the
    // device may wait out. The authorization is untouched (it is consumed only with the session): poll again.
    return { kind: 'error', error: 'server_error', retryAfter: 1 };
  }
  // Issuance itself failed (no signing key, a bug): the spec's server_error, "stop polling and start a new
  // authorization", without Retry-After. Nothing changed: the authorization stays approved until it expires.
  deps.logger.error({ err }, 'device token issuance failed');
  return fail('server_error');
}
