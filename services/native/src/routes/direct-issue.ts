// The three direct-issue endpoints (fast routes: the host's hot paths): parse the input (zod; the platform ticket's
// formats), call one domain function (limits, the counted credential attempt and the issue are the domain's),
// answer `{claims, applicationAnchor, accessToken, refreshToken}` with no-store headers.
import {
  type Answer,
  endpoint,
  ISSUANCE_REFUSALS,
  IssuedTokens,
  invalidBody,
  positiveInt64Member,
  type Reason,
  ServiceError,
} from '@svc/platform';
import type { NativeDeps } from '../deps';
import { accessKeyDirectIssue, publicKeyDirectIssue } from '../domain/direct-issue';
import type { DirectIssueResult } from '../domain/issue';
import { platformTicketSignIn } from '../domain/platform-ticket';
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

/** The result is the answer's body as it is: exactly its four members, in the spec's order. */
function issued(result: DirectIssueResult): Answer {
  return { json: result };
}

export function directIssueEndpoints(deps: NativeDeps) {
  const limit = deps.config.bodyLimitBytes;
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
      handle: async (req) => issued(await accessKeyDirectIssue(deps, req.body, req.ip)),
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
        const assertion = { authorization: req.headers.authorization, rawBody: req.rawBody };
        return issued(await publicKeyDirectIssue(deps, req.body.applicationAnchor, assertion, req.ip));
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
