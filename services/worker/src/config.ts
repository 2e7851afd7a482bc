// The worker's configuration, read once at start-up: every process's variables plus queue naming, the key
// schedule, sweep batches and retention periods.
import {
  DEFAULT_KEY_PREPUBLISH_SECONDS,
  DEFAULT_KEY_ROTATE_EVERY_SECONDS,
  type KeySchedule,
} from '@svc/keyring';
import {
  boolVar,
  DEFAULT_PORTS,
  type Env,
  intVar,
  isProduction,
  issuerUrlVar,
  optionalIntVar,
  type ProcessConfig,
  processConfigOf,
  processVars,
  publicUrlVar,
  readConfig,
  textVar,
  type VarValues,
} from '@svc/platform';

export interface RetentionConfig {
  /** Expired refresh versions are kept this long past their expiry (logout of old versions, audits). */
  /** How long a session is kept once it is no longer active and its refresh token has lapsed. */
  sessionSeconds: number;
  inquirySeconds: number;
  deviceAuthorizationSeconds: number;
  errandSeconds: number;
  /** Receipts of superseded terms revisions are kept this long after acceptance; current ones are never purged. */
  receiptSeconds: number;
  /** Audit rows older than this many days are cut from the trail's old end (AUDIT_RETENTION_DAYS, default 365). */
  auditDays: number;
  /**
   * Idempotency-Key records of the management API are deleted this long after their key was first used: the 24 hours
   * within which the contract replays an answer (CONTRACTS "Management API and audit trail"), not a setting.
   */
  idempotencySeconds: number;
}

/** The management API's Idempotency-Key window (24 hours), after which its records are swept. */
export const IDEMPOTENCY_RECORD_SECONDS = 24 * 60 * 60;

/** Delivery of events to applications (CONTRACTS "Events to applications"). */
export interface EventsConfig {
  /** ISSUER_URL: every SET's iss. */
  issuer: string;
  /** OIDC_URL: every logout token's iss (OIDC Back-Channel Logout), the ID tokens' issuer. */
  oidcIssuer: string;
  /** EVENTS_ALLOW_PRIVATE_TARGETS: production may push to loopback, private, link-local and unique-local targets. */
  allowPrivateTargets: boolean;
  /** Rows one delivery pass claims, and passes running at once. */
  batchSize: number;
  lanes: number;
  /** How long a claimed row is held before another worker may take it (past the 5 s attempt bound). */
  leaseMs: number;
  /** How often due rows are looked for besides the outbox's notifications (retries, lost wake-ups). */
  pollMs: number;
  /** Each attempt's bound (5 s). */
  timeoutMs: number;
}

export interface WorkerConfig extends ProcessConfig {
  events: EventsConfig;
  queueName: string;
  /** BullMQ key prefix in Redis; tests use a unique one. */
  prefix: string;
  concurrency: number;
  keySchedule: KeySchedule;
  /** How often the rotation tick runs (must be well inside the prepublication window). */
  rotationCheckMs: number;
  sweepEveryMs: number;
  sweepBatchSize: number;
  /** Upper bound of batches per target in one sweep run; the next tick continues. */
  sweepMaxBatches: number;
  /** Scopes handled per due-scope query in the rotation tick. */
  rotationBatchSize: number;
  retention: RetentionConfig;
  attempts: number;
  backoffMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

const DAY = 86_400;

function workerVars(production: boolean) {
  return {
    ...processVars(production),
    KEY_ROTATE_EVERY_SECONDS: intVar(DEFAULT_KEY_ROTATE_EVERY_SECONDS, { min: 1 }),
    KEY_PREPUBLISH_SECONDS: intVar(DEFAULT_KEY_PREPUBLISH_SECONDS, { min: 1 }),
    KEY_ROTATION_CHECK_SECONDS: optionalIntVar({ min: 1 }),
    KEY_CACHE_TTL_MS: intVar(30_000),
    WORKER_QUEUE_NAME: textVar('svc-jobs'),
    WORKER_QUEUE_PREFIX: textVar('svc'),
    WORKER_CONCURRENCY: intVar(2, { min: 1 }),
    SWEEP_INTERVAL_SECONDS: intVar(60, { min: 1 }),
    SWEEP_BATCH_SIZE: intVar(500, { min: 1 }),
    SWEEP_MAX_BATCHES: intVar(200, { min: 1 }),
    KEY_ROTATION_BATCH_SIZE: intVar(100, { min: 1 }),
    SESSION_RETENTION_SECONDS: intVar(7 * DAY),
    INQUIRY_RETENTION_SECONDS: intVar(DAY),
    DEVICE_AUTHORIZATION_RETENTION_SECONDS: intVar(DAY),
    ERRAND_RETENTION_SECONDS: intVar(DAY),
    RECEIPT_RETENTION_SECONDS: intVar(3 * 365 * DAY),
    AUDIT_RETENTION_DAYS: intVar(365, { min: 1 }),
    JOB_ATTEMPTS: intVar(5, { min: 1 }),
    JOB_BACKOFF_MS: intVar(2000, { min: 1 }),
    JOB_LOCK_DURATION_MS: intVar(30_000, { min: 1 }),
    JOB_STALLED_INTERVAL_MS: intVar(30_000, { min: 1 }),
    ISSUER_URL: issuerUrlVar('https://issuer.local.test', production),
    OIDC_URL: publicUrlVar(production, DEFAULT_PORTS.oidc, issuerUrlVar('', production)),
    EVENTS_ALLOW_PRIVATE_TARGETS: boolVar(false),
    EVENTS_BATCH_SIZE: intVar(100, { min: 1, max: 1000 }),
    EVENTS_LANES: intVar(4, { min: 1, max: 64 }),
    EVENTS_LEASE_MS: intVar(30_000, { min: 1000 }),
    // The drain's only way to find new rows (the outbox does not NOTIFY): 250 ms held p95 commit -> first attempt
    // under 0.75 s where 1 s gave 1.9 s (BENCHMARKS.md, "Events"); an idle lane's claim finds nothing in the
    // partial due index.
    EVENTS_POLL_MS: intVar(250, { min: 50 }),
    EVENTS_TIMEOUT_MS: intVar(5000, { min: 100, max: 5000 }),
  };
}
type WorkerVars = VarValues<ReturnType<typeof workerVars>>;

/** The rules between variables: the key schedule's windows nest. */
function problems(v: WorkerVars) {
  const found: { variable: string; problem: string }[] = [];
  if (v.KEY_PREPUBLISH_SECONDS >= v.KEY_ROTATE_EVERY_SECONDS)
    found.push({
      variable: 'KEY_PREPUBLISH_SECONDS',
      problem: 'must be shorter than KEY_ROTATE_EVERY_SECONDS',
    });
  if ((v.KEY_ROTATION_CHECK_SECONDS ?? 0) > v.KEY_PREPUBLISH_SECONDS)
    found.push({ variable: 'KEY_ROTATION_CHECK_SECONDS', problem: 'must not exceed KEY_PREPUBLISH_SECONDS' });
  if (v.EVENTS_LEASE_MS <= v.EVENTS_TIMEOUT_MS + 1000)
    found.push({ variable: 'EVENTS_LEASE_MS', problem: 'must exceed EVENTS_TIMEOUT_MS by more than 1000' });
  return found;
}

export function workerConfigFromEnv(env: Env): WorkerConfig {
  const production = isProduction(env);
  return readConfig(
    workerVars(production),
    env,
    (v) => ({
      ...processConfigOf(production, v),
      events: {
        issuer: v.ISSUER_URL,
        oidcIssuer: v.OIDC_URL,
        allowPrivateTargets: v.EVENTS_ALLOW_PRIVATE_TARGETS,
        batchSize: v.EVENTS_BATCH_SIZE,
        lanes: v.EVENTS_LANES,
        leaseMs: v.EVENTS_LEASE_MS,
        pollMs: v.EVENTS_POLL_MS,
        timeoutMs: v.EVENTS_TIMEOUT_MS,
      },
      queueName: v.WORKER_QUEUE_NAME,
      prefix: v.WORKER_QUEUE_PREFIX,
      concurrency: v.WORKER_CONCURRENCY,
      keySchedule: {
        rotateEverySeconds: v.KEY_ROTATE_EVERY_SECONDS,
        prepublishSeconds: v.KEY_PREPUBLISH_SECONDS,
        keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
      },
      rotationCheckMs: (v.KEY_ROTATION_CHECK_SECONDS ?? Math.min(300, v.KEY_PREPUBLISH_SECONDS)) * 1000,
      sweepEveryMs: v.SWEEP_INTERVAL_SECONDS * 1000,
      sweepBatchSize: v.SWEEP_BATCH_SIZE,
      sweepMaxBatches: v.SWEEP_MAX_BATCHES,
      rotationBatchSize: v.KEY_ROTATION_BATCH_SIZE,
      retention: {
        sessionSeconds: v.SESSION_RETENTION_SECONDS,
        inquirySeconds: v.INQUIRY_RETENTION_SECONDS,
        deviceAuthorizationSeconds: v.DEVICE_AUTHORIZATION_RETENTION_SECONDS,
        errandSeconds: v.ERRAND_RETENTION_SECONDS,
        receiptSeconds: v.RECEIPT_RETENTION_SECONDS,
        auditDays: v.AUDIT_RETENTION_DAYS,
        idempotencySeconds: IDEMPOTENCY_RECORD_SECONDS,
      },
      attempts: v.JOB_ATTEMPTS,
      backoffMs: v.JOB_BACKOFF_MS,
      lockDurationMs: v.JOB_LOCK_DURATION_MS,
      stalledIntervalMs: v.JOB_STALLED_INTERVAL_MS,
    }),
    problems,
  );
}
