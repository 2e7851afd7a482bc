// The device authorization grant (RFC 8628) on the standard wire, over the device host's authorizations
// (libs/device-grant): one table and user-code space, one polling state per authorization in Redis, the approval
// page on the device host. Starting one (device_authorization_endpoint) needs a client registered for the grant and
// an application with the spec wire's DEVICE_CODE return rule and PASSKEY_USERNAMELESS rule (how the person signs in
// to approve) besides its OIDC rule. Polling (/token, grant urn:ietf:params:oauth:grant-type:device_code) answers the
// RFC's errors; the poll that finds the authorization approved issues an OIDC session in the statement that
// consumes it (exactly one poll gets tokens, across replicas) and answers an OIDC token response.
import {
  type AuthorizationRow,
  deviceCodeHash,
  OIDC_DEVICE_CODE_PATTERN,
  startDeviceAuthorization,
  verificationUris,
} from '@svc/device-grant';
import { isIssuable } from '@svc/issuance';
import { isDependencyFailure, OAuthError, ServiceError, toleratedRedisFailure } from '@svc/platform';
import { clientApplication, issueOidcSession } from './issue-oidc';
import {
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  TemporarilyUnavailable,
  UnauthorizedClient,
} from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';
import { parseScope } from './scopes';
import { initialTokenResponse, type TokenResponse } from './token';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The spec wire's rules the device grant needs too (CONTRACTS, "OIDC host for browser applications and devices"). */
const RETURN_RULE = 'DEVICE_CODE';
const APPROVAL_SIGN_IN = 'PASSKEY_USERNAMELESS';

/** RFC 8628 3.2. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** RFC 8628 3.5's polling errors (their status is the OAuth table's). */
class PollError extends OAuthError {
  constructor(
    code: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token',
    description: string,
  ) {
    super(code, { description });
  }
}

function checkClient(client: OidcClient): void {
  if (!client.grantTypes.includes('device_code')) {
    throw new UnauthorizedClient('the client is not registered for the device grant');
  }
}

export async function startDeviceGrant(
  deps: OidcDomainDeps,
  client: OidcClient,
  p: { scope?: string; address: string; userAgent?: string },
): Promise<DeviceAuthorizationResponse> {
  checkClient(client);
  await countStart(deps, p.address);
  const app = await clientApplication(deps, client);
  if (!isIssuable(app)) throw new UnauthorizedClient('the application is not active');
  if (
    !app.returnRules.some((r) => r.method === RETURN_RULE) ||
    !app.authRules.some((r) => r.method === APPROVAL_SIGN_IN)
  ) {
    throw new UnauthorizedClient('the application does not accept device sign-in');
  }
  // Unknown scopes are dropped (RFC 6749 3.3); openid is required, as at /authorize.
  const scopes = parseScope(p.scope ?? '');
  if (!scopes.includes('openid')) throw new InvalidScope('scope must include openid');
  const settings = deps.oidc.deviceGrant;
  const started = await startDeviceAuthorization(deps.ports.deviceGrant, settings, {
    now: new Date(deps.clock()),
    applicationId: app.id,
    origin: { address: p.address, userAgent: p.userAgent },
    prefix: 'odc_',
    oidc: { clientId: client.id, scope: scopes.join(' ') },
  });
  const uris = verificationUris(settings.deviceUrl, started.userCode);
  return {
    device_code: started.deviceCode,
    user_code: started.userCode,
    verification_uri: uris.verificationUri,
    verification_uri_complete: uris.verificationUriComplete,
    expires_in: started.expiresIn,
    interval: started.interval,
  };
}

const UNUSABLE = 'the device code is invalid, already used or was issued to another client';

/** One poll at /token (RFC 8628 3.4, 3.5). */
export async function deviceCodeGrant(
  deps: OidcDomainDeps,
  client: OidcClient,
  deviceCode: string | undefined,
  address: string,
  dpopJkt?: string,
): Promise<TokenResponse> {
  checkClient(client);
  if (!deviceCode) throw new InvalidRequest('device_code is required');
  if (!OIDC_DEVICE_CODE_PATTERN.test(deviceCode)) throw new InvalidGrant(UNUSABLE);
  const hash = deviceCodeHash(deviceCode);
  const { polling, authorizations } = deps.ports.deviceGrant;
  // The client is checked in the same script, before the polling state is read or moved: another client's poll is
  // invalid_grant and leaves the owner's interval and last-poll time as they were.
  const verdict = await polling.poll(hash, new Date(deps.clock()), client.id);
  switch (verdict.kind) {
    case 'foreign':
      throw new InvalidGrant(UNUSABLE);
    case 'pending':
      throw new PollError('authorization_pending', 'the person has not decided yet');
    case 'slow_down':
      throw new PollError('slow_down', `poll at most every ${verdict.interval} seconds`);
    case 'expired':
      throw new PollError('expired_token', 'the device code expired; start again');
    case 'consumed':
      throw new InvalidGrant(UNUSABLE);
    case 'denied':
      throw new PollError('access_denied', 'the person or policy denied the request');
  }
  // A code Redis does not know is invented, or its state was lost: only these polls read PostgreSQL, so they are
  // counted per address (with the device host's) and slowed before they reach it.
  if (verdict.kind === 'unknown') await countUnknownPoll(deps, address);
  // Decided, or Redis lost the state: PostgreSQL answers.
  const row = await authorizations.byCodeHash(hash);
  if (!row || row.oidcClientId !== client.id || row.state === 'CONSUMED') throw new InvalidGrant(UNUSABLE);
  const now = new Date(deps.clock());
  if (row.expiresAt <= now) throw new PollError('expired_token', 'the device code expired; start again');
  switch (row.state) {
    case 'DENIED':
      await polling.markFinal(hash, 'denied', row.expiresAt);
      throw new PollError('access_denied', 'the person or policy denied the request');
    case 'PENDING':
      await polling.reseed(hash, row.interval, row.expiresAt, now, client.id);
      throw new PollError('authorization_pending', 'the person has not decided yet');
    default:
      return redeem(deps, client, hash, row, dpopJkt);
  }
}

/** Each start writes a row: counted per address on the device host's counters, before anything is read. */
async function countStart(deps: OidcDomainDeps, address: string): Promise<void> {
  try {
    await deps.ports.deviceAuthorizeLimit.consume(address);
  } catch (err) {
    if (err instanceof ServiceError && err.reason === 'TooManyAttempts') {
      throw new OAuthError('slow_down', {
        variant: 'rateLimited',
        description: 'too many device authorizations from this address; retry later',
        headers: err.headers,
        cause: err,
      });
    }
    throw err;
  }
}

async function countUnknownPoll(deps: OidcDomainDeps, address: string): Promise<void> {
  try {
    await deps.ports.unknownDeviceCodeLimit.consume(address);
  } catch (err) {
    if (err instanceof ServiceError && err.reason === 'TooManyAttempts') {
      throw new PollError('slow_down', 'too many polls of unknown device codes from this address; slow down');
    }
    throw err;
  }
}

async function deny(deps: OidcDomainDeps, hash: string, row: AuthorizationRow): Promise<never> {
  await deps.ports.deviceGrant.authorizations.deny(row.id, new Date(deps.clock()), ['APPROVED']);
  await deps.ports.deviceGrant.polling.markFinal(hash, 'denied', row.expiresAt);
  throw new PollError('access_denied', 'the person or policy denied the request');
}

async function redeem(
  deps: OidcDomainDeps,
  client: OidcClient,
  hash: string,
  row: AuthorizationRow,
  dpopJkt: string | undefined,
): Promise<TokenResponse> {
  // The application's standing now, not as cached: it may have been suspended since the approval.
  const app = await deps.ports.applications.loadApplication({ id: row.applicationId });
  if (
    !app ||
    !isIssuable(app) ||
    !app.authRules.some((r) => r.method === APPROVAL_SIGN_IN) ||
    !row.accountId ||
    row.authorityVersion === null ||
    !row.authTime
  ) {
    return deny(deps, hash, row);
  }
  const scope = row.scope ?? 'openid';
  let issued: Awaited<ReturnType<typeof issueOidcSession>>;
  try {
    issued = await issueOidcSession(deps, {
      client,
      accountId: row.accountId,
      scope,
      authTime: row.authTime,
      amr: row.amr,
      acr: row.acr ?? undefined,
      authorityVersion: row.authorityVersion,
      redeemsDeviceAuthorization: { id: row.id },
      dpopJkt,
    });
  } catch (err) {
    return lost(deps, hash, row, err);
  }
  await deps.ports.deviceGrant.polling
    .markFinal(hash, 'consumed', row.expiresAt)
    .catch(toleratedRedisFailure(deps.metrics, 'device_poll_mark_final', undefined));
  return initialTokenResponse(deps, client, issued, {
    scope,
    authTime: row.authTime,
    amr: row.amr,
    acr: row.acr,
  });
}

/** Why issuance wrote nothing: a concurrent poll consumed it, policy refuses (access_denied, final), or a failure. */
async function lost(deps: OidcDomainDeps, hash: string, row: AuthorizationRow, err: unknown): Promise<never> {
  if (err instanceof ServiceError && err.reason === 'AuthorizationArtifactStale') {
    const current = await deps.ports.deviceGrant.authorizations.byCodeHash(hash);
    if (!current || current.state === 'CONSUMED') throw new InvalidGrant(UNUSABLE);
    if (current.state === 'DENIED')
      throw new PollError('access_denied', 'the person or policy denied the request');
    return deny(deps, hash, row);
  }
  if (isDependencyFailure(err) || (err instanceof ServiceError && err.reason === 'TemporarilyUnavailable')) {
    throw new TemporarilyUnavailable();
  }
  // The issuance core's refusals (account disabled, terms, claim gate, email-domain policy, no OIDC rule): the
  // person starts a new approval.
  if (err instanceof ServiceError || err instanceof UnauthorizedClient) return deny(deps, hash, row);
  throw err;
}
