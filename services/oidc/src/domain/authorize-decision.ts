// What a valid authorization request needs before it can be answered: whether the person must authenticate now
// (no sign-in, prompt=login or select_account, max_age passed), and how prompt=none and issuance refusals are
// told to the client as OIDC Core 3.1.2.6 errors.
import type { Reason } from '@svc/platform';
import type { AuthorizationRequest, AuthorizeError } from './authorize-request';

/** The sign-in a browser holds on the OIDC host, as far as this decision needs it. */
export interface HeldSignIn {
  accountId: string;
  /** Seconds since the epoch. */
  authTime: number;
}

/**
 * True when the request cannot use the held sign-in: there is none, the request asks for a new authentication
 * (prompt login or select_account), or the sign-in is older than max_age (max_age=0 always re-authenticates).
 */
export function needsFreshLogin(
  request: Pick<AuthorizationRequest, 'prompt' | 'maxAge'>,
  held: HeldSignIn | undefined,
  nowSeconds: number,
): boolean {
  if (!held) return true;
  if (request.prompt.has('login') || request.prompt.has('select_account')) return true;
  if (request.maxAge === undefined) return false;
  return request.maxAge === 0 || nowSeconds - held.authTime > request.maxAge;
}

/** What the pages would still ask of a signed-in person before the client may be answered. */
export type OwedStep = 'none' | 'terms' | 'consent' | 'account-unavailable';

/** The error for prompt=none when a page would be needed (OIDC Core 3.1.2.6). */
export function promptNoneError(freshLogin: boolean, owed: OwedStep): AuthorizeError | undefined {
  if (freshLogin) return { error: 'login_required', description: 'The person must sign in.' };
  switch (owed) {
    case 'none':
      return undefined;
    case 'consent':
      return { error: 'consent_required', description: 'The person must decide what to share.' };
    case 'terms':
      return { error: 'interaction_required', description: 'The person must accept the basic terms.' };
    case 'account-unavailable':
      return { error: 'login_required', description: 'The signed-in account cannot sign in.' };
  }
}

/**
 * An issuance refusal at the moment of answering the client, as an authorization error. Consent and terms
 * need the person again; policy refusals deny; anything else is the provider's failure.
 */
export function authorizeErrorForReason(reason: Reason): AuthorizeError {
  switch (reason) {
    case 'ClaimConsentRequired':
    case 'RequiredClaimDataMissing':
      return { error: 'consent_required', description: 'The person must decide what to share.' };
    case 'LegalAgreementRequired':
      return { error: 'interaction_required', description: 'The person must accept the basic terms.' };
    case 'AccountDisabled':
    case 'AccountDeleted':
    case 'AccountNotFound':
    case 'EmailDomainBlocked':
    case 'EmailDomainRequiresSso':
    case 'SsoAuthorityConflict':
      return { error: 'access_denied', description: 'This account may not sign in to this client.' };
    case 'ApplicationNotActive':
    case 'ApplicationNotFound':
    case 'Layer1Denied':
    case 'Layer2Denied':
    case 'Layer3Denied':
      return { error: 'unauthorized_client', description: 'This client may not sign people in now.' };
    case 'TemporarilyUnavailable':
      return { error: 'temporarily_unavailable', description: 'Try again in a moment.' };
    default:
      return { error: 'server_error', description: 'The request could not be completed.' };
  }
}
