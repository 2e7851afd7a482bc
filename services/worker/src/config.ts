// Worker configuration from the environment: queue naming, schedules, sweep batches and retention periods.
import { type KeySchedule, keyScheduleFromEnv } from '@svc/keyring';

export interface RetentionConfig {
  /** Expired refresh versions are kept this long past their expiry (logout of old versions, audits). */
  /** How long a session is kept once it is no longer active and its refresh token has lapsed. */
  sessionSeconds: number;
  inquirySeconds: number;
  deviceAuthorizationSeconds: number;
  errandSeconds: number;
  /** Receipts of superseded terms revisions are kept this long after acceptance; current ones are never purged. */
  receiptSeconds: number;
}

export interface WorkerConfig {
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

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`);
  return n;
}

const DAY = 86_400;

export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const keySchedule = keyScheduleFromEnv(env);
  const rotationCheckSeconds = int(
    env,
    'KEY_ROTATION_CHECK_SECONDS',
    Math.min(300, keySchedule.prepublishSeconds),
  );
  if (rotationCheckSeconds > keySchedule.prepublishSeconds) {
    throw new Error('KEY_ROTATION_CHECK_SECONDS must not exceed KEY_PREPUBLISH_SECONDS');
  }
  return {
    queueName: env.WORKER_QUEUE_NAME || 'svc-jobs',
    prefix: env.WORKER_QUEUE_PREFIX || 'svc',
    concurrency: int(env, 'WORKER_CONCURRENCY', 2),
    keySchedule,
    rotationCheckMs: rotationCheckSeconds * 1000,
    sweepEveryMs: int(env, 'SWEEP_INTERVAL_SECONDS', 60) * 1000,
    sweepBatchSize: int(env, 'SWEEP_BATCH_SIZE', 500),
    sweepMaxBatches: int(env, 'SWEEP_MAX_BATCHES', 200),
    rotationBatchSize: int(env, 'KEY_ROTATION_BATCH_SIZE', 100),
    retention: {
      sessionSeconds: int(env, 'SESSION_RETENTION_SECONDS', 7 * DAY, 0),
      inquirySeconds: int(env, 'INQUIRY_RETENTION_SECONDS', DAY, 0),
      deviceAuthorizationSeconds: int(env, 'DEVICE_AUTHORIZATION_RETENTION_SECONDS', DAY, 0),
      errandSeconds: int(env, 'ERRAND_RETENTION_SECONDS', DAY, 0),
      receiptSeconds: int(env, 'RECEIPT_RETENTION_SECONDS', 3 * 365 * DAY, 0),
    },
    attempts: int(env, 'JOB_ATTEMPTS', 5),
    backoffMs: int(env, 'JOB_BACKOFF_MS', 2000),
    lockDurationMs: int(env, 'JOB_LOCK_DURATION_MS', 30_000),
    stalledIntervalMs: int(env, 'JOB_STALLED_INTERVAL_MS', 30_000),
  };
}
