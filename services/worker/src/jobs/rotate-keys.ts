// The rotation tick: the platform-wide OIDC scope plus every application scope with a lifecycle step due, in
// batches. Each scope's step runs under its PostgreSQL advisory lock (runScheduledRotation), so ticks racing on
// several workers, or an operator rotating at the same moment, never rotate twice; every change is announced on
// Redis pub/sub so every host replica reloads that scope's keys at once.
import { type AuditEntry, changed, workerActor } from '@svc/audit';
import { type KeySchedule, OIDC_SCOPE, type ScheduledRotationResult } from '@svc/keyring';
import type { Clock, Logger } from '@svc/platform';
import type { WorkerPorts } from './ports';

export interface RotationDeps {
  ports: Pick<WorkerPorts, 'keys' | 'changes'>;
  clock: Clock;
  schedule: KeySchedule;
  batchSize: number;
  logger?: Logger;
  onStep?: (step: 'created' | 'prepublished' | 'activated' | 'expired', count: number) => void;
}

export interface RotationTickResult {
  scopes: number;
  prepublished: number;
  activated: number;
  expired: number;
  failed: number;
}

/** What one scheduled step records in the audit trail: one row per kind of change it made to the scope's keys. */
export function rotationAuditEntries(
  res: ScheduledRotationResult,
  target: { type: string; id: string },
): AuditEntry[] {
  const entries: AuditEntry[] = [];
  if (res.created)
    entries.push({ action: 'keys.create', target, changes: { signingKid: changed(null, res.created) } });
  if (res.activated)
    entries.push({
      action: 'keys.rotate',
      target,
      changes: { signingKid: changed(res.retired, res.activated), mode: changed(null, 'scheduled') },
    });
  if (res.prepublished)
    entries.push({
      action: 'keys.prepublish',
      target,
      changes: { nextKid: changed(null, res.prepublished) },
    });
  if (res.expired)
    entries.push({ action: 'keys.expire', target, changes: { expiredKeys: changed(null, res.expired) } });
  return entries;
}

const ROTATION_ACTOR = workerActor('rotate-keys');

async function rotateOne(deps: RotationDeps, scopeId: string, at: Date): Promise<ScheduledRotationResult> {
  // The step and its audit rows in one transaction; the hosts are told once it has committed.
  const res = await deps.ports.changes.as(ROTATION_ACTOR).run(async (tx, audit) => {
    const step = await tx.keys.runScheduledRotation(scopeId, deps.schedule, at);
    if (step.changed) {
      const target = await tx.keys.targetOf(scopeId);
      for (const entry of rotationAuditEntries(step, target)) audit.record(entry);
    }
    return step;
  });
  if (res.changed) {
    await deps.ports.keys.publishKeyChange(scopeId);
    deps.logger?.info(
      {
        scope: scopeId,
        prepublished: res.prepublished,
        activated: res.activated,
        retired: res.retired,
        expired: res.expired,
      },
      'signing keys changed',
    );
  }
  if (res.keySetFull) {
    deps.logger?.warn(
      { scope: scopeId, published: res.keySetFull.published, roomAt: res.keySetFull.roomAt },
      'JWK Set full: the successor key is not prepublished until a retiring key leaves the set',
    );
  }
  if (res.created) deps.onStep?.('created', 1);
  if (res.prepublished) deps.onStep?.('prepublished', 1);
  if (res.activated) deps.onStep?.('activated', 1);
  if (res.expired) deps.onStep?.('expired', res.expired);
  return res;
}

/** One tick at `deps.clock()`. A scope that fails is skipped and the tick throws at the end, so the job retries. */
export async function runRotationTick(deps: RotationDeps): Promise<RotationTickResult> {
  const at = new Date(deps.clock());
  const total: RotationTickResult = { scopes: 0, prepublished: 0, activated: 0, expired: 0, failed: 0 };
  const add = (r: ScheduledRotationResult) => {
    total.scopes++;
    if (r.prepublished) total.prepublished++;
    if (r.activated) total.activated++;
    total.expired += r.expired;
  };
  const failures: unknown[] = [];
  const attempt = async (scopeId: string) => {
    try {
      add(await rotateOne(deps, scopeId, at));
    } catch (err) {
      total.failed++;
      failures.push(err);
      deps.logger?.error({ err, scope: scopeId }, 'key rotation step failed');
    }
  };
  await attempt(OIDC_SCOPE);
  let after: string | undefined;
  for (;;) {
    const scopes = await deps.ports.keys.dueApplicationScopes(deps.schedule, at, {
      after,
      limit: deps.batchSize,
    });
    for (const scopeId of scopes) await attempt(scopeId);
    if (scopes.length < deps.batchSize) break;
    after = scopes[scopes.length - 1];
  }
  if (failures.length)
    throw new AggregateError(failures, `key rotation failed for ${failures.length} scope(s)`);
  return total;
}
