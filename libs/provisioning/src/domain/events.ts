// The operator's view of events to applications: an application's subscription (set, show, clear) and its
// outbox (list, redeliver), by anchor; the rules themselves are libs/events'.

import { changed } from '@svc/audit';
import {
  clearSubscription,
  type DeliveryStatus,
  EventsError,
  listEvents,
  redeliverEvent,
  setSubscription,
  showSubscription,
  type TargetPolicy,
} from '@svc/events';
import type { Clock } from '@svc/platform';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor, uuidOrThrow } from './tenancy';

/** An events rule's refusal, as the operator's error. */
async function refused<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (err instanceof EventsError) throw new ProvisioningError(err.message);
    throw err;
  }
}

/** A receiver URL as the audit trail keeps it: without its query or fragment (which may carry a token). */
function urlForAudit(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<unparsable>';
  }
}

export async function setEventSubscription(
  ports: Uses<'changes'>,
  policy: TargetPolicy,
  anchor: string,
  input: { url: string; events: string[] },
  clock: Clock,
) {
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const deps = { ...tx.events, policy };
    const view = await refused(setSubscription(deps, app.id, input, new Date(clock())));
    audit.record({
      action: 'app.events_set',
      target: { type: 'application', id: app.anchor },
      changes: { url: changed(null, urlForAudit(input.url)), events: changed(null, input.events) },
    });
    return { applicationAnchor: app.anchor, ...view };
  });
}

export async function showEventSubscription(ports: Uses<'tenancy' | 'events'>, anchor: string) {
  const app = await appByAnchor(ports, anchor);
  return { applicationAnchor: app.anchor, ...(await showSubscription(ports.events, app.id)) };
}

export async function clearEventSubscription(ports: Uses<'changes'>, anchor: string) {
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const cleared = await clearSubscription(tx.events, app.id);
    if (cleared.cleared) {
      audit.record({
        action: 'app.events_clear',
        target: { type: 'application', id: app.anchor },
        changes: { subscription: changed('set', null) },
      });
    }
    return { applicationAnchor: app.anchor, ...cleared };
  });
}

export async function listApplicationEvents(
  ports: Uses<'tenancy' | 'events'>,
  anchor: string,
  status: DeliveryStatus | undefined,
  limit: number | undefined,
) {
  const app = await appByAnchor(ports, anchor);
  return { applicationAnchor: app.anchor, ...(await listEvents(ports.events.outbox, app.id, status, limit)) };
}

export async function redeliverApplicationEvent(ports: Uses<'changes'>, id: string, clock: Clock) {
  const eventId = uuidOrThrow(id, 'event');
  return ports.changes.run(async (tx, audit) => {
    const event = await refused(redeliverEvent(tx.events.outbox, eventId, new Date(clock())));
    audit.record({
      action: 'events.redeliver',
      target: { type: 'event', id: eventId },
      changes: { status: changed(null, 'PENDING') },
    });
    return { event };
  });
}
