// POST /device-authorize and POST /device-token (the fast dispatcher: node:http, no Express): device-token is the
// hot path of the host (every waiting device polls it every few seconds). Body parsing here, rules in domain/.

import { DEVICE_CODE_PATTERN } from '@svc/device-grant';
import {
  type Answer,
  countDevicePoll,
  type DevicePollAnswer,
  endpoint,
  IssuedTokens,
  isDependencyFailure,
  OAuthError,
  oauthAnswerOf,
  type Reason,
  ServiceError,
  storableText,
} from '@svc/platform';
import { z } from 'zod';
import type { DeviceDeps } from '../deps';
import { authorizeDevice, countAuthorizeCall } from '../domain/authorize';
import { DEVICE_POLL_ERRORS, type DevicePollError, type PollOutcome, pollDeviceToken } from '../domain/token';

const BODY_LIMIT = 4 * 1024;
const ANCHOR = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const authorizeBody = z.strictObject({ applicationAnchor: storableText().min(3).max(64).regex(ANCHOR) });
/**
 * Exactly `{deviceCode}` (a strict object also refuses an own `__proto__` member); a failure is InvalidBody, which
 * this endpoint's mapError answers as invalid_request, like every other malformed body.
 */
const tokenBody = z.strictObject({ deviceCode: z.string().regex(DEVICE_CODE_PATTERN) });

/** Spec: the /device-authorize response. */
const Authorized = z.strictObject({
  applicationAnchor: z.string(),
  deviceCode: z.string().regex(DEVICE_CODE_PATTERN),
  userCode: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/),
  verificationUri: z.url(),
  verificationUriComplete: z.url(),
  expiresIn: z.int().min(1),
  interval: z.int().min(1),
});

const JSON_TYPE = 'application/json; charset=utf-8';
/** The answers without variable parts, serialised once: a pending poll writes these bytes and nothing else. */
const FIXED = Object.fromEntries(
  DEVICE_POLL_ERRORS.map((e) => [e, Buffer.from(JSON.stringify({ error: e }))]),
) as Record<DevicePollError, Buffer>;

/** The answer a poll is counted under in `device_polls_total` (deploy/observability's dashboard). */
function countedAs(outcome: PollOutcome): DevicePollAnswer {
  if (outcome.kind === 'issued') return 'approved';
  switch (outcome.error) {
    case 'authorization_pending':
    case 'slow_down':
    case 'access_denied':
    case 'expired_token':
      return outcome.error;
    case 'invalid_request':
    case 'server_error':
      return 'invalid';
  }
}

function pollAnswer(outcome: PollOutcome): Answer {
  if (outcome.kind === 'issued') return { json: outcome.tokens };
  const { error, interval, retryAfter } = outcome;
  if (retryAfter !== undefined) {
    const outage = oauthAnswerOf(error, 'outage');
    return {
      status: outage.status,
      json: { error },
      headers: { ...outage.headers, 'Retry-After': String(retryAfter) },
    };
  }
  const { status } = oauthAnswerOf(error);
  if (interval !== undefined) return { status, json: { error, interval } };
  return { status, raw: FIXED[error], contentType: JSON_TYPE };
}

/**
 * The polling error a refusal of the service becomes, by its reason: the server's own unavailability is a failed
 * issuance; every other reason (a malformed or too large body, a refused request) is the request's.
 */
const POLL_ERROR_OF: Readonly<Partial<Record<Reason, DevicePollError>>> = {
  TemporarilyUnavailable: 'server_error',
};

/** Every failure of /device-token is one of the spec's polling errors, never a `reason` body. */
function asPollError(err: unknown): OAuthError {
  if (err instanceof OAuthError) return err;
  // The outage variant (503 with Retry-After) only for an outage of PostgreSQL or Redis the device may wait out
  // (the cause chain names it); any other failure is a failed issuance: stop polling and start a new authorization.
  if (isDependencyFailure(err)) return new OAuthError('server_error', { variant: 'outage' });
  if (err instanceof ServiceError) return new OAuthError(POLL_ERROR_OF[err.reason] ?? 'invalid_request');
  return new OAuthError('server_error');
}

export function deviceEndpoints(deps: DeviceDeps) {
  return [
    endpoint({
      method: 'POST',
      path: '/device-authorize',
      body: { kind: 'json', schema: authorizeBody, limit: BODY_LIMIT },
      noStore: true,
      doc: {
        summary: 'Starts a device authorization.',
        answers: [{ schema: Authorized }],
        reasons: ['ApplicationNotFound', 'ApplicationNotActive', 'Layer3Denied', 'TooManyAttempts'],
      },
      // The address is counted before the body is checked: a malformed attempt is an attempt.
      authenticate: (req) => countAuthorizeCall(deps, req.ip),
      handle: async (req) => {
        const answer = await authorizeDevice(deps, req.body.applicationAnchor, {
          address: req.ip,
          userAgent: req.headers['user-agent'],
        });
        return { json: answer };
      },
    }),
    endpoint({
      method: 'POST',
      path: '/device-token',
      body: { kind: 'json', schema: tokenBody, limit: BODY_LIMIT },
      noStore: true,
      doc: {
        summary: 'Polls a device authorization; the tokens once approved.',
        answers: [{ schema: IssuedTokens }],
        oauthErrors: {
          400: ['authorization_pending', 'slow_down', 'access_denied', 'expired_token', 'invalid_request'],
          500: ['server_error'],
          503: ['server_error'],
        },
        oauthOnly: true,
        oauthExtra: { interval: z.int().min(1) },
        oauthHeaders: { 503: { 'Retry-After': 'Seconds to wait before polling again.' } },
      },
      handle: async (req) => {
        const outcome = await pollDeviceToken(deps, req.body.deviceCode, req.ip);
        countDevicePoll(deps.metrics, countedAs(outcome));
        return pollAnswer(outcome);
      },
      mapError: (err) => {
        countDevicePoll(deps.metrics, 'invalid');
        return asPollError(err);
      },
    }),
  ];
}
