// The outbox as operators see it (`pnpm admin events list|redeliver`): one line per event, no body and no secret.

import type { DeliveryStatus, OutboxRow, OutboxStore } from './ports';
import { EventsError } from './subscriptions';

export function outboxView(r: OutboxRow) {
  const payload = (r.payload ?? {}) as { event?: string; sid?: string; reason?: string };
  return {
    id: r.id,
    kind: r.kind,
    event: payload.event ?? null,
    ...(payload.sid ? { sid: payload.sid } : {}),
    ...(payload.reason ? { reason: payload.reason } : {}),
    url: r.targetUrl,
    status: r.status.toLowerCase(),
    attempts: r.attempts,
    createdAt: r.createdAt.toISOString(),
    nextAttemptAt: r.status === 'PENDING' ? r.nextAttemptAt.toISOString() : null,
    deliveredAt: r.deliveredAt?.toISOString() ?? null,
    lastError: r.lastError,
    lastStatus: r.lastStatus,
  };
}

export async function listEvents(
  outbox: Pick<OutboxStore, 'list'>,
  applicationId: string,
  status: DeliveryStatus | undefined,
  limit = 100,
) {
  return { events: (await outbox.list(applicationId, status, limit)).map(outboxView) };
}

export async function redeliverEvent(outbox: Pick<OutboxStore, 'redeliver'>, id: string, at: Date) {
  const row = await outbox.redeliver(id, at);
  if (!row) throw new EventsError('event not found', 'not_found');
  return outboxView(row);
}
