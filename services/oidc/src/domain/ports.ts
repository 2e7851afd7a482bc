// The ports the OIDC domain reaches its data through (its registered clients, authorization codes, parked requests,
// OIDC sessions and browser sign-ins), with the records they carry, and what the domain is handed: these ports and
// values (settings, clock, metrics, key ring). store/* implements each port; deps.ts binds them once into `ports`.
import type { DeviceGrantStores } from '@svc/device-grant';
import type {
  ApplicationCache,
  HeldAuthority,
  IssuanceDeps,
  IssuancePorts,
  IssuanceSnapshot,
  UserinfoReads,
} from '@svc/issuance';
import type { Logger, Metrics, RateLimiter } from '@svc/platform';
import type { Uses } from '@svc/provisioning';
import type { DpopReplay } from '@svc/token-core';
import type { OidcSettings } from '../config';
import type { AuthorizationRequest, Prompt } from './authorize-request';
import type { ResponseMode } from './authorize-terms';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface OidcClient {
  /** The row id (codes and OIDC sessions refer to it). */
  id: string;
  clientId: string;
  /** SHA-256 hex of the secret; null for a public client (auth method `none`). */
  secretHash: string | null;
  authMethod: ClientAuthMethod;
  applicationId: string;
  /** The application's anchor: the access token's aud. */
  applicationAnchor: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** Registered response types in canonical order ("code", "code id_token", ...). */
  responseTypes: string[];
  /** Grants besides refresh_token: `authorization_code` and/or `device_code`. */
  grantTypes: string[];
  /** Origins (`scheme://host[:port]`) whose pages may read this client's answers (CORS). */
  webOrigins: string[];
  /** RFC 9126 `require_pushed_authorization_requests`: /authorize only with a request_uri from /par. */
  requirePar: boolean;
  /** dpop_bound_access_tokens: /token issues nothing without a valid DPoP proof. */
  requireDpop: boolean;
  active: boolean;
}

/** Registered OIDC clients (store/clients.ts). */
export interface ClientStore {
  /** The client registered under `clientId`, or undefined (unknown ids never reach the database twice a second). */
  get(clientId: string): Promise<OidcClient | undefined>;
  /** Whether some active client registers this web origin (a CORS preflight, which presents no client). */
  originRegistered(origin: string): Promise<boolean>;
  clear(): void;
}

export interface CodeRow {
  id: string;
  oidcClientId: string;
  applicationId: string;
  accountId: string;
  redirectUri: string;
  codeChallenge: string | null;
  /** The DPoP key the code is bound to (a proof at /par, RFC 9449 10); null when unbound. */
  dpopJkt: string | null;
  nonce: string | null;
  scope: string;
  authTime: Date;
  amr: string[];
  acr: string | null;
  browserSessionId: string | null;
  authorityVersion: number | null;
}

export type NewCode = Omit<CodeRow, 'id'> & { codeHash: string; expiresAt: Date };

export type ConsumeResult =
  | { kind: 'consumed'; code: CodeRow }
  /** Consumed before: the replay is now marked; `sid` is the session the first exchange issued, if written yet. */
  | { kind: 'replayed'; sid: string | null }
  /** Unknown, or expired unconsumed. */
  | { kind: 'invalid' };

/** Authorization codes, by SHA-256 of the code (store/codes.ts). */
export interface CodeStore {
  insert(code: NewCode): Promise<void>;
  /** Consumes the code at `now` if it is unconsumed and unexpired; otherwise marks a replay of a consumed one. */
  consume(codeHash: string, now: Date): Promise<ConsumeResult>;
  /**
   * Records the session the exchange issued. Returns true when a replay was marked meanwhile (before this
   * write, so the replay could not see the sid): the caller then revokes the session itself.
   */
  attachSession(codeId: string, sid: string): Promise<boolean>;
}

/**
 * What a parked request keeps: the checked request as JSON carries it, the client by id only (it is read again on
 * use) and the prompt as a list.
 */
export type Interaction = Omit<AuthorizationRequest, 'client' | 'prompt'> & {
  clientId: string;
  prompt: Prompt[];
  /** Milliseconds since the epoch. */
  createdAt: number;
  /**
   * Decided on the first page view (where the browser's sign-in cookie is sure to arrive): the person must
   * authenticate in this interaction (no sign-in, prompt=login, max_age passed).
   */
  freshLogin?: boolean;
  /** The browser's sign-in was offered to the page steps once (choosing another account is not undone). */
  heldOffered?: boolean;
  /** prompt=consent: the person has reviewed what the application can see. */
  consentReviewed?: boolean;
};

/** The page progress a parked request records beside it. */
export type InteractionFlags = Pick<Interaction, 'freshLogin' | 'heldOffered' | 'consentReviewed'>;

/**
 * What is kept of a request to answer its client once it has expired: where and how the answer goes and the
 * client's `state`, never the nonce, PKCE challenge, hints or anything about the person.
 */
export interface ExpiredReturn {
  clientId: string;
  redirectUri: string;
  responseMode: ResponseMode;
  state?: string;
  /** When the request expired, milliseconds since the epoch. */
  expiredAt: number;
}

/** Authorization requests waiting for the person, and their return records (store/interactions.ts). */
export interface InteractionStore {
  /** Parks a request and its return record; returns the identifier for the page URL. */
  park(interaction: Interaction): Promise<string>;
  /** The request while it is parked and unexpired. */
  get(uid: string): Promise<Interaction | undefined>;
  /** Records page progress on a request still parked (its lifetime unchanged); false when it is gone. */
  flag(uid: string, flags: InteractionFlags): Promise<boolean>;
  /** Removes and returns an unexpired request with its return record: exactly one caller finishes it. */
  take(uid: string): Promise<Interaction | undefined>;
  /** The return record of a request that is no longer parked, while its client can still be answered. */
  expiredReturn(uid: string): Promise<ExpiredReturn | undefined>;
  /** Removes and returns the return record: exactly one caller answers the client. */
  takeExpiredReturn(uid: string): Promise<ExpiredReturn | undefined>;
}

/** An authorization request pushed at /par (RFC 9126), waiting for its one use at /authorize. */
export interface PushedRequest {
  /** The pushed parameters as sent (client_id among them), checked at push time as /authorize checks them. */
  pairs: [string, string][];
  /** Milliseconds since the epoch, by the host's clock. */
  expiresAt: number;
  /**
   * The JWK thumbprint of the DPoP proof that came with the push (RFC 9449 section 10.1), which the code issued for
   * this request is bound to.
   */
  dpopJkt?: string;
}

export type PushedTake =
  | { kind: 'taken'; request: PushedRequest }
  /** Never pushed, pushed by another client, or already taken and deleted. */
  | { kind: 'unknown' }
  /** Its 60 s have passed. */
  | { kind: 'expired' }
  /** Another use won the single-use claim. */
  | { kind: 'used' };

/** Pushed authorization requests by client and request_uri (store/pushed-requests.ts). */
export interface PushedRequestStore {
  push(clientId: string, requestUri: string, request: PushedRequest, ttlSeconds: number): Promise<void>;
  /** The request `clientId` pushed under `requestUri`, once across every replica. */
  take(clientId: string, requestUri: string): Promise<PushedTake>;
}

export interface NewOidcSession {
  sid: string;
  oidcClientId: string;
  clientId: string;
  amr: string[];
  acr: string | null;
  browserSessionId: string | null;
  /** The ID tokens' `sid` (id-token.ts signInSid). */
  idTokenSid: string;
  /** A public client's refresh token is bound to this DPoP key (RFC 7638 thumbprint); null when unbound. */
  dpopJkt: string | null;
}

/** What /userinfo and /claim-state read for an access token's `sid`: its OIDC session, account and grants. */
export type { UserinfoRead } from '@svc/issuance';

/** What an OIDC-issued session keeps beside its sessions row (store/oidc-sessions.ts). */
export interface OidcSessionStore extends UserinfoReads {
  insert(row: NewOidcSession): Promise<void>;
  /** The client_id an OIDC session was issued to (CORS at /userinfo), or undefined. */
  clientIdOf(sid: string): Promise<string | undefined>;
  /**
   * The live (active or suspended) OIDC sessions of one client for one subject from one sign-in (auth_time to the
   * second, as ID tokens state it).
   */
  liveOfSignIn(q: {
    oidcClientId: string;
    applicationId: string;
    subject: string;
    authTime: number;
  }): Promise<string[]>;
}

export interface SignInSession {
  accountId: string;
  /** Seconds since the epoch: the ID token's auth_time. */
  authTime: number;
  amr: string[];
  acr?: string;
  /** The account's authority when the person authenticated; what this sign-in's answers issue under. */
  authority: HeldAuthority;
  /**
   * Stable for the life of this sign-in (the cookie identifier is not): codes and OIDC sessions name it, so
   * end-session can find what this sign-in approved.
   */
  handle: string;
}

/** The OIDC host's own sign-in on a browser (cookie oidc_session), kept server-side (store/sign-in-sessions.ts). */
export interface SignInSessionStore {
  /** Idle lifetime of a sign-in (the cookie's max-age). */
  readonly ttlSeconds: number;
  /**
   * The sign-in behind a cookie value, or undefined (no cookie, not issued here, expired, ended, or its account's
   * authority moved since: then it is ended now).
   */
  read(id: string | undefined): Promise<SignInSession | undefined>;
  /** Renews the idle lifetime of a sign-in still in use; false when it is gone. */
  touch(id: string): Promise<boolean>;
  /** Records a new sign-in under a fresh identifier, ending the one the browser held. */
  start(
    previousId: string | undefined,
    s: Omit<SignInSession, 'handle'>,
  ): Promise<{ id: string; session: SignInSession }>;
  /** Ends the sign-in (end-session): the identifier stops working at once. */
  end(id: string): Promise<void>;
}

/** Every port of the OIDC domain, bound once in deps.ts: the issuance core's and the host's own. */
export interface OidcPorts extends IssuancePorts {
  clients: ClientStore;
  codes: CodeStore;
  interactions: InteractionStore;
  pushedRequests: PushedRequestStore;
  oidcSessions: OidcSessionStore;
  signInSessions: SignInSessionStore;
  /** Device authorizations and their polling state, shared with the device host (libs/device-grant). */
  deviceGrant: DeviceGrantStores;
  /**
   * /authorize requests per client address (OIDC_AUTHORIZE_RATE_PER_MINUTE), one atomic Redis operation shared by
   * every replica; over it, TooManyAttempts (the pages' "too many" page with Retry-After).
   */
  authorizeLimit: RateLimiter;
  /**
   * Device-grant polls per client address of codes Redis does not know (DEVICE_RATE_UNKNOWN_PER_ADDRESS): the same
   * counters as the device host's, so invented codes reach PostgreSQL no faster over both wires than over one.
   */
  unknownDeviceCodeLimit: RateLimiter;
  /**
   * Device authorizations started per client address (DEVICE_RATE_AUTHORIZE_PER_ADDRESS): the device host's limit
   * on its own counters, so one address starts no more over both wires and every replica than over one.
   */
  deviceAuthorizeLimit: RateLimiter;
  /** DPoP proofs' jti, claimed once per key across every replica (Redis; a failure refuses the request). */
  dpopReplay: DpopReplay;
  /**
   * Dynamic client registration's stores (libs/provisioning's, so that POST /register inserts exactly the client
   * `oidc-client create` would): the applications' rules and the initial access tokens.
   */
  registration: Uses<'tenancy' | 'registrationTokens' | 'changes' | 'events'>;
  /** POST /register per client address (OIDC_REGISTRATION_RATE_PER_MINUTE). */
  registerLimit: RateLimiter;
}

/**
 * What the OIDC domain's functions are handed: the issuance core's values (key ring, KEK, secrets, clock), the ports
 * (the issuance core's and the host's own), and the host's values (settings, application cache, metrics, logger).
 * No database or Redis handle: those stay in deps.ts and store/.
 */
export interface OidcDomainDeps extends IssuanceDeps {
  ports: OidcPorts;
  apps: ApplicationCache;
  oidc: OidcSettings;
  logger: Logger;
  metrics?: Metrics;
}
