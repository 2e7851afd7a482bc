// The operator's view of events to applications: an application's subscription (set, show, clear) and its
// outbox (list, redeliver), by anchor; the rules themselves are libs/events'.
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

export async function setEventSubscription(
  ports: Uses<'tenancy' | 'events'>,
  policy: TargetPolicy,
  anchor: string,
  input: { url: string; events: string[] },
  clock: Clock,
) {
  const app = await appByAnchor(ports, anchor);
  const deps = { ...ports.events, policy };
  const view = await refused(setSubscription(deps, app.id, input, new Date(clock())));
  return { applicationAnchor: app.anchor, ...view };
}

export async function showEventSubscription(ports: Uses<'tenancy' | 'events'>, anchor: string) {
  const app = await appByAnchor(ports, anchor);
  return { applicationAnchor: app.anchor, ...(await showSubscription(ports.events, app.id)) };
}

export async function clearEventSubscription(ports: Uses<'tenancy' | 'events'>, anchor: string) {
  const app = await appByAnchor(ports, anchor);
  return { applicationAnchor: app.anchor, ...(await clearSubscription(ports.events, app.id)) };
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

export async function redeliverApplicationEvent(ports: Uses<'events'>, id: string, clock: Clock) {
  return {
    event: await refused(redeliverEvent(ports.events.outbox, uuidOrThrow(id, 'event'), new Date(clock()))),
  };
}
