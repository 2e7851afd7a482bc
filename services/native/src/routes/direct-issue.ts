// The three direct-issue endpoints (fast routes: the host's hot paths): parse and guard the input (zod, formats,
// rate limits), call one domain function (an access key's or public key's attempt counted in
// credential_attempts_total), answer `{claims, applicationAnchor, accessToken, refreshToken}` with
// no-store headers.
import {
  type Answer,
  type CredentialKind,
  countCredentialAttempt,
  endpoint,
  ISSUANCE_REFUSALS,
  IssuedTokens,
  invalidBody,
  positiveInt64Member,
  type Reason,
  ServiceError,
} from '@svc/platform';
import { decodeProtectedHeader } from 'jose';
import type { CredentialLimits, NativeDeps } from '../deps';
import { checkAccessKeyFormats, proveAccessKey } from '../domain/access-key';
import { type DirectIssueResult, issueForCredential, requireApplication } from '../domain/issue';
import { platformTicketSignIn } from '../domain/platform-ticket';
import { provePublicKeyAssertion } from '../domain/public-key';
import { accessKeyBody, PLATFORM_TICKET_HEX, platformTicketBody, publicKeyBody } from './schemas';

/** Every direct issue's refusals (spec, Errors: direct-issue (all)) and its rate limit. */
const DIRECT_ISSUE: readonly Reason[] = [
  'ApplicationNotFound',
  'Layer1Denied',
  'Layer2Denied',
  'Layer3Denied',
  ...ISSUANCE_REFUSALS,
  'AccountNotFound',
  'TooManyAttempts',
];
const ISSUED = [{ schema: IssuedTokens }];

async function consume(
  limiters: CredentialLimits,
  address: string,
  credential: string | undefined,
): Promise<void> {
  // Both limits count the attempt; they are consumed together in one pipelined round trip.
  await Promise.all([
    limiters.address.consume(address),
    credential ? limiters.credential.consume(credential) : undefined,
  ]);
}

/** The refusals that are the credential's own, counted `rejected` (anything else about the request is not). */
const REFUSED: Record<'access_key' | 'public_key', readonly Reason[]> = {
  access_key: ['InvalidAccessKeyIdentifier', 'InvalidAccessKeySecret', 'AccessKeyDirectDenied'],
  public_key: ['PublicKeyDirectDenied', 'PublicKeyAssertionReplayed'],
};

/**
 * Runs one credential attempt (limits, then proof) and counts how it was decided in credential_attempts_total:
 * `accepted` when the proof returns, `rejected` for the credential's own refusals, `limited` for TooManyAttempts.
 * Per-address and per-credential limits cannot see guesses spread over many addresses and keys; the fleet-wide
 * count can (deploy/observability's alerts). An unknown application or a dependency failure is not counted.
 */
async function countedAttempt<T>(
  deps: NativeDeps,
  kind: CredentialKind & keyof typeof REFUSED,
  attempt: () => Promise<T>,
): Promise<T> {
  try {
    const proven = await attempt();
    countCredentialAttempt(deps.metrics, kind, 'accepted');
    return proven;
  } catch (err) {
    if (err instanceof ServiceError) {
      if (err.reason === 'TooManyAttempts') countCredentialAttempt(deps.metrics, kind, 'limited');
      else if (REFUSED[kind].includes(err.reason)) countCredentialAttempt(deps.metrics, kind, 'rejected');
    }
    throw err;
  }
}

function issued(result: DirectIssueResult): Answer {
  return {
    json: {
      claims: result.claims,
      applicationAnchor: result.applicationAnchor,
      accessToken: result.accessToken,
      refreshToken: result.refreshToken,
    },
  };
}

/** The kid named by an (unverified) assertion, only as a rate-limit key; undefined when unreadable. */
function peekKid(authorization: string | undefined): string | undefined {
  const jws = authorization?.trim().split(/\s+/)[1];
  if (!jws || jws.length > 4096) return undefined;
  try {
    const kid = decodeProtectedHeader(jws).kid;
    return typeof kid === 'string' && kid.startsWith('pky_') && kid.length <= 64 ? kid : undefined;
  } catch {
    return undefined;
  }
}

export function directIssueEndpoints(deps: NativeDeps) {
  const limit = deps.config.bodyLimitBytes;
  const { accessKey: accessKeyLimits, publicKey: publicKeyLimits } = deps.limits;
  return [
    endpoint({
      method: 'POST',
      path: '/direct-issue/access-key',
      body: { kind: 'json', schema: accessKeyBody, limit },
      noStore: true,
      doc: {
        summary: 'Issues a session for an access key.',
        answers: ISSUED,
        reasons: [
          ...DIRECT_ISSUE,
          'InvalidAccessKeyIdentifier',
          'InvalidAccessKeySecret',
          'AccessKeyDirectDenied',
        ],
      },
      handle: async (req) => {
        const input = req.body;
        const { app, binding } = await countedAttempt(deps, 'access_key', async () => {
          checkAccessKeyFormats(input.accessKeyIdentifier, input.accessKeySecret);
          await consume(accessKeyLimits, req.ip, input.accessKeyIdentifier);
          const app = await requireApplication(deps, input.applicationAnchor);
          const binding = await proveAccessKey(deps, app, input.accessKeyIdentifier, input.accessKeySecret);
          return { app, binding };
        });
        return issued(await issueForCredential(deps, app, binding));
      },
    }),
    endpoint({
      method: 'POST',
      path: '/direct-issue/public-key',
      body: { kind: 'json', schema: publicKeyBody, limit },
      noStore: true,
      doc: {
        summary: 'Issues a session for a signed public-key assertion.',
        answers: ISSUED,
        reasons: [...DIRECT_ISSUE, 'PublicKeyDirectDenied', 'PublicKeyAssertionReplayed'],
        auth: 'publicKeyAssertion',
      },
      handle: async (req) => {
        const input = req.body;
        const authorization = req.headers.authorization;
        const { app, binding } = await countedAttempt(deps, 'public_key', async () => {
          await consume(publicKeyLimits, req.ip, peekKid(authorization));
          const app = await requireApplication(deps, input.applicationAnchor);
          const binding = await provePublicKeyAssertion(deps, app, { authorization, rawBody: req.rawBody });
          return { app, binding };
        });
        return issued(await issueForCredential(deps, app, binding));
      },
    }),
    endpoint({
      method: 'POST',
      path: '/direct-issue/platform-ticket',
      body: { kind: 'json', schema: platformTicketBody, limit },
      noStore: true,
      doc: {
        summary: 'Issues a session for a game-platform ticket.',
        answers: ISSUED,
        reasons: [
          ...DIRECT_ISSUE,
          'InvalidPlatformTicket',
          'PlatformTicketRejected',
          'ReplayProtectionAlreadySeen',
          'LegalAgreementRevisionMismatch',
        ],
      },
      handle: async (req) => {
        const input = req.body;
        const platformAppId = positiveInt64Member(input.platformAppId, req.rawBody, 'platformAppId');
        // Not an integer (or decimal string) from 1 to 2^63-1: a malformed body like any other.
        if (platformAppId === undefined) throw invalidBody();
        if (!PLATFORM_TICKET_HEX.test(input.platformTicketHex))
          throw new ServiceError('InvalidPlatformTicket');
        return issued(await platformTicketSignIn(deps, { ...input, platformAppId }));
      },
    }),
  ];
}
