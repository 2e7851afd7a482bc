// The spec's wire shapes an application receives (Resources and Endpoints), as TypeScript types.

export type ClaimRequirement =
  | 'SYNTHETIC_ONLY'
  | 'OFF'
  | 'OPTIONAL'
  | 'REQUIRED'
  | 'SYNTHETIC_FALLBACK'
  | 'SYNTHETIC';
export type ClaimState = 'UNKNOWN' | 'GRANTED' | 'DENIED';
export interface ClaimEntry {
  requirement: ClaimRequirement;
  state: ClaimState;
}

/** The five-claim view of token responses. */
export interface ClaimView {
  email: ClaimEntry;
  firstName: ClaimEntry;
  lastName: ClaimEntry;
  staticAvatar: ClaimEntry;
  animatedAvatar: ClaimEntry;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  claims: ClaimView;
}

/** /redeem, the direct-issue paths and /device-token. */
export interface IssuedTokens extends TokenPair {
  applicationAnchor: string;
}

export interface Errand {
  errandKey: string;
  url: string;
  expiresAt: string;
}

export type ReturnMethod =
  | { type: 'CALLBACK'; payload: { callbackUrl: string } }
  | { type: 'STATUS_POLL'; payload?: Record<string, never> }
  | { type: 'REVEAL'; payload?: Record<string, never> };

export interface TtlOverrides {
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
}

export interface EstablishRequest {
  authenticationConstraints?: Array<
    { method: 'PASSKEY_USERNAMELESS'; payload: Record<string, never> } & TtlOverrides
  >;
  realizeConstraints?: Array<
    { constraintType: 'EMAIL'; payload: { allowedEmails: string[] } } & TtlOverrides
  >;
  returnMethods?: ReturnMethod[];
}

export interface Inquiry {
  applicationAnchor: string;
  exposureKey: string;
  hiddenKey: string;
  /** Where to send the person: the connect host's inquiry page. */
  url: string;
}

export interface InquiryKeys {
  exposureKey: string;
  hiddenKey: string;
  confirmationKey: string;
}

export interface IntrospectResult {
  status: 'active' | 'revoked' | 'expired' | 'not_found';
  recommendedRecheckSeconds: number;
}

export interface UserInfo {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  picture_animated?: string;
}

export interface ClaimStateResult {
  sub: string;
  claims: Record<'email' | 'given_name' | 'family_name' | 'picture' | 'picture_animated', ClaimEntry>;
}

export interface AgreementAcceptance {
  revision: number;
  locale: 'en-US' | 'zh-CN';
  contentSha256: string;
  confirmed: boolean;
}

/** The /device-authorize answer: show `userCode` and `verificationUri`, keep `deviceCode` secret. */
export interface DeviceAuthorization {
  /** Shown to the person, to compare with the approval page. */
  userCode: string;
  /** Where the person goes (or `verificationUriComplete`, which carries the user code). */
  verificationUri: string;
  verificationUriComplete: string;
  /** The bearer secret polled with; never displayed. */
  deviceCode: string;
  /** Seconds until the code expires; `interval` the least seconds between polls. */
  expiresIn: number;
  interval: number;
  applicationAnchor: string;
}
