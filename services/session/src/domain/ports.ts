// The session host's ports: the issuance core's stores, its own session cache and the client-auth stores (client
// keys, replay set), bound once in deps.ts; and what its rules take (SessionDomainDeps): ports and values, never a
// database or Redis handle.
import type { ClientAuthPorts } from '@svc/client-auth';
import type { ApplicationCache, IssuanceDeps, IssuancePorts, NewSession, SessionStatus } from '@svc/issuance';
import type { DpopReplay } from '@svc/token-core';

/** The session fields the hot read paths (introspect, userinfo, claim-state) need. */
export type CachedSession = Pick<
  NewSession,
  | 'id'
  | 'applicationId'
  | 'protocol'
  | 'accountId'
  | 'workloadId'
  | 'workloadGeneration'
  | 'sourceCredentialId'
  | 'subject'
  | 'actorSubject'
  | 'expiresAt'
> & {
  status: SessionStatus;
  /** The account's authority version the session was issued under (null: issued before sessions kept it). */
  authorityVersion: number | null;
  /** Its account as read with it: status and current authority version (null: no such account row). */
  account: { status: 'ACTIVE' | 'DISABLED' | 'DELETED'; authorityVersion: number } | null;
};

/** Session records for the hot read paths, reused briefly and dropped when a session changes. */
export interface SessionCachePort {
  get(sid: string): Promise<CachedSession | null>;
  /** Drops this process's copy at once (every replica's is dropped by the session change published after it). */
  evict(sid: string): void;
}

export interface SessionPorts extends IssuancePorts {
  sessionCache: SessionCachePort;
  /** The client keys and replay set /revoke-all's client-auth JWT is verified against. */
  clientAuth: ClientAuthPorts;
  /** DPoP proofs' jti at /userinfo and /claim-state, claimed once per key across every replica (Redis). */
  dpopReplay: DpopReplay;
}

/** What the session host's rules take: its ports and values (keys, secrets, clock, configuration numbers). */
export interface SessionDomainDeps
  extends Pick<IssuanceDeps, 'keyRing' | 'kek' | 'issuer' | 'verifiedTokenCacheSize' | 'clock'> {
  ports: SessionPorts;
  apps: ApplicationCache;
  /** recommendedRecheckSeconds for an active session (INTROSPECT_RECHECK_SECONDS). */
  recheckSeconds: number;
  /** This host's public origin (SESSION_URL): a DPoP proof's htu names it. */
  sessionUrl: string;
}
