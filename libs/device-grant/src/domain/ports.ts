// The ports of device authorizations: the rows in PostgreSQL (store/authorizations.ts) and their polling state in
// Redis (store/polling.ts), as the rules (start.ts, the hosts' domains) see them; no database or Redis handle here.

export type DeviceState = 'PENDING' | 'APPROVED' | 'DENIED' | 'CONSUMED';

export interface NewAuthorization {
  deviceCodeHash: string;
  userCode: string;
  applicationId: string;
  interval: number;
  createdAt: Date;
  expiresAt: Date;
  deviceAddress: string | null;
  deviceUserAgent: string | null;
  /** Started at the OIDC host: its client (oidc_clients.id) and the scope asked for; null on the spec's wire. */
  oidcClientId: string | null;
  scope: string | null;
}

/** What /device-token reads when Redis cannot answer alone. */
export interface AuthorizationRow {
  id: string;
  applicationId: string;
  state: DeviceState;
  accountId: string | null;
  interval: number;
  expiresAt: Date;
  authMethod: string | null;
  authTime: Date | null;
  authorityVersion: number | null;
  oidcClientId: string | null;
  scope: string | null;
  amr: string[];
  acr: string | null;
}

/** A live pending authorization, as the approval page shows it. */
export interface PendingRow {
  id: string;
  deviceCodeHash: string;
  /** Stored form, `XXXX-XXXX`: what the device's screen shows. */
  userCode: string;
  applicationId: string;
  applicationAnchor: string;
  /** The client address and User-Agent seen at /device-authorize (the User-Agent printable, at most 256 chars). */
  deviceAddress: string | null;
  deviceUserAgent: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface Approval {
  accountId: string;
  authMethod: string;
  authTime: Date;
  authorityVersion: number;
  consent: Record<string, string> | null;
  /** RFC 8176 references and acr of the approving sign-in (an OIDC device grant's ID token states them). */
  amr: string[];
  acr: string | null;
}

export interface AuthorizationStore {
  insert(row: NewAuthorization): Promise<boolean>;
  byCodeHash(deviceCodeHash: string): Promise<AuthorizationRow | undefined>;
  /** The PENDING, unexpired authorization with this stored-form user code. */
  pendingByUserCode(userCode: string, now: Date): Promise<PendingRow | undefined>;
  pendingById(id: string, now: Date): Promise<PendingRow | undefined>;
  /** PENDING -> APPROVED while unexpired; false when it was not pending (decided, consumed) or expired. */
  approve(id: string, approval: Approval, now: Date): Promise<boolean>;
  /** PENDING or APPROVED -> DENIED; false when it was neither. Denial is final. */
  deny(id: string, now: Date, from?: DeviceState[]): Promise<boolean>;
}

export type PollVerdict =
  | { kind: 'pending' }
  | { kind: 'slow_down'; interval: number }
  | { kind: 'expired' }
  | { kind: 'consumed' }
  | { kind: 'denied' }
  /** Decided (or a decision is being written): PostgreSQL answers. */
  | { kind: 'ask' }
  /** Redis has no state for the code: unknown, or Redis lost it; PostgreSQL answers. */
  | { kind: 'unknown' }
  /** The code belongs to another owner (another OIDC client's): nothing was read or changed. */
  | { kind: 'foreign' };

/**
 * `owner`: who alone may poll the code (the OIDC client it was issued to); none on the spec's wire, where the code
 * alone is the bearer. A poll by anyone else is `foreign` and changes nothing.
 */
export interface PollingStore {
  /** A new authorization's state: its interval, expiry and owner, no poll yet. */
  seed(codeHash: string, interval: number, expiresAt: Date, owner?: string): Promise<void>;
  /** Seeds again after Redis lost the hash, with the last poll now (that poll was accepted). */
  reseed(codeHash: string, interval: number, expiresAt: Date, lastPoll: Date, owner?: string): Promise<void>;
  /** Throws DependencyTimeoutError (a 503) when Redis ran the poll too late for this host to use it. */
  poll(codeHash: string, now: Date, owner?: string): Promise<PollVerdict>;
  /**
   * Marks the authorization decided before PostgreSQL records the decision: every later poll asks PostgreSQL. It
   * creates the hash when Redis lost it, so a poll that reseeds it meanwhile cannot hide the decision.
   */
  markDeciding(codeHash: string, expiresAt: Date): Promise<void>;
  /** Records a final outcome PostgreSQL now holds, so later polls are answered from Redis alone. */
  markFinal(codeHash: string, outcome: 'consumed' | 'denied', expiresAt: Date): Promise<void>;
}

/** Both stores of device authorizations, bound once by the host (createDeviceGrantStores). */
export interface DeviceGrantStores {
  authorizations: AuthorizationStore;
  polling: PollingStore;
}
