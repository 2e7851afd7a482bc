// The ports the native host's domain works through: what it reads and writes about credentials, platform links and
// sessions, the platform-ticket replay set and the Steam Web API. services/native/src/store/ implements them and
// deps.ts binds them once; the domain names no database or Redis handle.
import type { ReplaySet } from '@svc/client-auth';
import type { ApplicationCache, CurrentTerms, IssuanceDeps, IssueRead } from '@svc/issuance';
import type { Metrics, RateLimiter } from '@svc/platform';
import type { JWK } from 'jose';

export interface AccessKeyRow {
  id: string;
  secretHash: string;
  /** Applicability: exactly one of the two is set (one application, or every application of one sector). */
  applicationId: string | null;
  sectorId: string | null;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
}

export interface PublicKeyRow {
  id: string;
  jwk: JWK;
  /** Applicability, as on AccessKeyRow. */
  applicationId: string | null;
  sectorId: string | null;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
}

export interface WorkloadRow {
  id: string;
  kind: 'ACCOUNT' | 'AGENT' | 'AUTOMATION';
  ownerAccountId: string;
  status: 'ACTIVE' | 'REVOKED';
  generation: number;
}

/** A credential with its workload (null when it has none or the workload is gone) and its principal's issue read. */
export interface CredentialForIssue<Key> {
  key: Key;
  workload: WorkloadRow | null;
  read: IssueRead;
}

/** Where the issue read is taken: the application named in the request, its sector and the current terms. */
export interface CredentialReadScope {
  applicationId: string;
  sectorId: string;
  terms: CurrentTerms | undefined;
}

/** The credentials direct issue accepts, each read with its workload and its principal's issue read (one read). */
export interface CredentialStore {
  findAccessKeyForIssue(
    identifier: string,
    scope: CredentialReadScope,
  ): Promise<CredentialForIssue<AccessKeyRow> | null>;
  findPublicKeyForIssue(
    kid: string,
    scope: CredentialReadScope,
  ): Promise<CredentialForIssue<PublicKeyRow> | null>;
}

export interface LinkedAccount {
  accountId: string;
  created: boolean;
}

/** A verified game-platform user id belongs to exactly one account per platform. */
export interface PlatformLinkStore {
  /** The linked account, creating the account and the link together on first sign-in. */
  findOrCreate(platform: string, platformUserId: string): Promise<LinkedAccount>;
}

export interface SessionState {
  applicationId: string;
  accountId: string;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  expiresAt: Date;
  workloadId: string | null;
  actorSubject: string | null;
  /** The account authority version the session was issued under (null for sessions from before the record). */
  authorityVersion: number | null;
  /** The workload authority rule (the one introspection and refresh apply); true for account sessions. */
  workloadOk: boolean;
}

/** The application sessions /errand reads: state and, for a workload session, authority, in one read. */
export interface SessionStore {
  find(sid: string): Promise<SessionState | null>;
}

/** Single use of platform tickets across every replica, by the SHA-256 of the normalized ticket. */
export interface TicketReplayStore {
  /** True when this call is the first to present the ticket; false when it was seen before. */
  claim(hash: string): Promise<boolean>;
  /** Frees a claim when verification could not happen at all (Steam unreachable), so the client may retry. */
  release(hash: string): Promise<void>;
}

export type SteamVerdict =
  | { kind: 'verified'; steamId: string; ownerSteamId: string; vacBanned: boolean; publisherBanned: boolean }
  | { kind: 'rejected'; errorCode: number | null }
  | { kind: 'unavailable'; why: string };

/** Steam's ISteamUserAuth/AuthenticateUserTicket: a verdict, never a throw for Steam's own failures. */
export interface SteamClient {
  authenticateUserTicket(appId: bigint, ticketHex: string): Promise<SteamVerdict>;
}

/** A direct-issue endpoint's two limits: per client address and per credential (access-key identifier, kid). */
export interface CredentialLimits {
  address: RateLimiter;
  credential: RateLimiter;
}

/** Every port of the native host's domain, bound once in deps.ts. */
export interface NativePorts {
  /** Applications by their public anchor (the host's cache). */
  apps: ApplicationCache;
  credentials: CredentialStore;
  links: PlatformLinkStore;
  sessions: SessionStore;
  replay: TicketReplayStore;
  steam: SteamClient;
  /** Public-key assertions' jti, single use across replicas (libs/client-auth). */
  assertionReplay: ReplaySet;
  /** The attempt counters (Redis) of the two credential endpoints. */
  limits: { accessKey: CredentialLimits; publicKey: CredentialLimits };
}

/** What a domain function of the native host takes: its ports, the issuance core's values and its metrics. */
export interface NativeDomain {
  ports: NativePorts;
  issuance: IssuanceDeps;
  /** Where credential attempts are counted (credential_attempts_total); tests may leave it out. */
  metrics?: Metrics;
}
