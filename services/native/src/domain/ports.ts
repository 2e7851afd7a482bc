// The ports the native host's domain works through: what it reads and writes about credentials, platform links and
// sessions, the platform-ticket replay set and the Steam Web API. services/native/src/store/ implements them and
// deps.ts binds them once; the domain names no database or Redis handle.
import type { ReplaySet } from '@svc/client-auth';
import type { ApplicationCache, CredentialReads, IssuanceDeps, SessionStates } from '@svc/issuance';
import type { Metrics, RateLimiter } from '@svc/platform';

export type {
  AccessKeyRow,
  CredentialForIssue,
  CredentialReadScope,
  PublicKeyRow,
  WorkloadRow,
} from '@svc/issuance';

/** The credentials direct issue accepts: the issuance core's credential reads (@svc/issuance). */
export type CredentialStore = CredentialReads;

export interface LinkedAccount {
  accountId: string;
  created: boolean;
}

/** A verified game-platform user id belongs to exactly one account per platform. */
export interface PlatformLinkStore {
  /** The linked account, creating the account and the link together on first sign-in. */
  findOrCreate(platform: string, platformUserId: string): Promise<LinkedAccount>;
}

export type { SessionState } from '@svc/issuance';

/** The application sessions /errand reads: the issuance core's session states (@svc/issuance). */
export type SessionStore = SessionStates;

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
