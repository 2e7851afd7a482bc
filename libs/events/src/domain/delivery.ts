// One delivery pass over the outbox: claim due rows (leased), build each body by its kind, push it, and record every
// outcome in one write: delivered on any 2xx; otherwise retried with backoff (backoff.ts) until 72 hours after the
// change, then failed. At least once: a row whose outcome was never recorded is due again when its lease lapses.
import type { Clock } from '@svc/platform';
import { nextAttemptAt } from './backoff';
import type {
  AttemptRecord,
  BodyBuilder,
  ClaimedRow,
  FailureReason,
  OutboxStore,
  Push,
  PushOutcome,
} from './ports';

export interface DeliveryDeps {
  outbox: OutboxStore;
  /** The body builder of each row kind. */
  bodies: Readonly<Record<string, BodyBuilder>>;
  push: Push;
  clock: Clock;
  /** Seconds from the change's commit to its first attempt (events_delivery_latency_seconds). */
  onFirstAttempt?(seconds: number): void;
  /** A failed attempt, by reason (events_delivery_failures_total). */
  onFailure?(reason: FailureReason, final: boolean): void;
  onDelivered?(): void;
}

export interface DeliveryOptions {
  batchSize: number;
  /** How long a claimed row is held (longer than an attempt can take). */
  leaseMs: number;
}

async function attempt(deps: DeliveryDeps, row: ClaimedRow): Promise<PushOutcome> {
  const build = deps.bodies[row.kind];
  let body: string;
  try {
    if (!build) throw new Error(`no body builder for ${row.kind}`);
    body = await build(row);
  } catch (err) {
    return { delivered: false, reason: 'signing', detail: (err as Error).message };
  }
  return deps.push({ url: row.targetUrl, contentType: row.contentType, body });
}

function recordOf(row: ClaimedRow, outcome: PushOutcome, at: Date, now: Date): AttemptRecord {
  if (outcome.delivered) return { id: row.id, at, outcome: 'delivered', status: outcome.status };
  const error = outcome.detail ? `${outcome.reason}: ${outcome.detail}`.slice(0, 500) : outcome.reason;
  const status = outcome.status ?? null;
  const next = nextAttemptAt(row.createdAt, row.attempts + 1, now);
  return next
    ? { id: row.id, at, outcome: 'retry', next, error, status }
    : { id: row.id, at, outcome: 'failed', error, status };
}

/** Delivers one batch; returns how many rows it claimed (a full batch means more may be due). */
export async function deliverDue(deps: DeliveryDeps, opts: DeliveryOptions): Promise<number> {
  const rows = await deps.outbox.claim(opts.batchSize, opts.leaseMs);
  if (rows.length === 0) return 0;
  const records = await Promise.all(
    rows.map(async (row) => {
      const at = new Date(deps.clock());
      if (row.attempts === 0)
        deps.onFirstAttempt?.(Math.max(0, (at.getTime() - row.createdAt.getTime()) / 1000));
      const outcome = await attempt(deps, row);
      const record = recordOf(row, outcome, at, new Date(deps.clock()));
      if (outcome.delivered) deps.onDelivered?.();
      else deps.onFailure?.(outcome.reason, record.outcome === 'failed');
      return record;
    }),
  );
  await deps.outbox.record(records);
  return rows.length;
}
