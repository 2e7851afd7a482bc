// The audit trail's records: who acted (the actor and the request it came in), what one change recorded, and the
// stored row with its place in the hash chain.

/**
 * Who made a change: an operator key over the management API, the admin CLI, the worker, a person, or an initial
 * access token registering a client (POST /register on the OIDC host).
 */
export type AuditActorKind = 'operator_key' | 'cli' | 'worker' | 'person' | 'registration_token';

export interface AuditActor {
  kind: AuditActorKind;
  /** The operator key's id, the CLI's OS user, the worker's job, a person's internal account id. */
  id: string;
  /** A readable name (the operator key's name, `pnpm admin`, the job's name); null when there is none. */
  name: string | null;
}

/** Everything about a change that is not the change itself: the actor and the request that carried it. */
export interface AuditContext {
  actor: AuditActor;
  requestId?: string | null;
  sourceAddress?: string | null;
  userAgent?: string | null;
}

/** One changed field: the value before and after (null when absent); secrets only as REDACTED. */
export interface AuditChange {
  from: unknown;
  to: unknown;
}

export type AuditChanges = Record<string, AuditChange>;

/** What a change records: `app.create` on {type: 'application', id: anchor} with its changed fields. */
export interface AuditEntry {
  action: string;
  target: { type: string; id: string };
  changes?: AuditChanges;
}

/** A row of the trail as every reader sees it (list, export, GET /v1/audit-events). */
export interface AuditEvent {
  /** The chain position, strictly increasing, as a decimal string (a bigint in the database). */
  seq: string;
  id: string;
  /** ISO 8601, milliseconds. */
  at: string;
  actor: AuditActor;
  action: string;
  target: { type: string; id: string };
  changes: AuditChanges;
  requestId: string | null;
  sourceAddress: string | null;
  userAgent: string | null;
  prevHash: string;
  hash: string;
}

/** Collects the entries of one change; they are appended to the chain in the change's transaction before commit. */
export interface AuditRecorder {
  record(entry: AuditEntry): void;
}

/** The value every secret, hash or private key takes in `changes`. */
export const REDACTED = '<redacted>';
