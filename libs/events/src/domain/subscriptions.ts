// The operator's subscription rules (`pnpm admin app events set|show|clear` and the management API): the URL
// rules, the address check in production, and which events.
import { EVENT_NAMES, type EventName, isEventName } from './event-types';
import type { ResolveHost, Subscription, SubscriptionsStore } from './ports';
import { refusedAddresses, TARGET_REFUSALS, type TargetPolicy, urlRefusal } from './target-url';

export class EventsError extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid_url' | 'not_https' | 'private_target' | 'unknown_event' | 'not_found',
  ) {
    super(message);
    this.name = 'EventsError';
  }
}

export interface SubscriptionDeps {
  subscriptions: SubscriptionsStore;
  resolveHost: ResolveHost;
  policy: TargetPolicy;
}

/** The subscription as the CLI and API show it. */
export function subscriptionView(s: Subscription | undefined) {
  if (!s) return { subscribed: false as const };
  return {
    subscribed: true as const,
    url: s.url,
    events: s.events.length === 0 ? [...EVENT_NAMES] : s.events,
    allEvents: s.events.length === 0,
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** Checks a target URL as a subscription is set: its own rules, then (in production) where its host resolves. */
export async function checkTarget(deps: Omit<SubscriptionDeps, 'subscriptions'>, url: string): Promise<void> {
  const refusal = urlRefusal(url, deps.policy);
  if (refusal) throw new EventsError(TARGET_REFUSALS[refusal], refusal);
  if (!deps.policy.production || deps.policy.allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = await deps.resolveHost(host);
  } catch {
    throw new EventsError(`the URL's host ${host} does not resolve`, 'invalid_url');
  }
  if (addresses.length === 0 || refusedAddresses(addresses, deps.policy).length > 0)
    throw new EventsError(TARGET_REFUSALS.private_target, 'private_target');
}

export async function setSubscription(
  deps: SubscriptionDeps,
  applicationId: string,
  input: { url: string; events: string[] },
  at: Date,
) {
  const unknown = input.events.filter((e) => !isEventName(e));
  if (unknown.length > 0)
    throw new EventsError(
      `unknown event ${unknown.join(', ')}; events are ${EVENT_NAMES.join(', ')}`,
      'unknown_event',
    );
  await checkTarget(deps, input.url);
  const events = [...new Set(input.events as EventName[])].sort();
  // Every event named is the same as naming none.
  const stored = events.length === EVENT_NAMES.length ? [] : events;
  return subscriptionView(await deps.subscriptions.put(applicationId, input.url, stored, at));
}

export async function showSubscription(deps: Pick<SubscriptionDeps, 'subscriptions'>, applicationId: string) {
  return subscriptionView(await deps.subscriptions.find(applicationId));
}

export async function clearSubscription(
  deps: Pick<SubscriptionDeps, 'subscriptions'>,
  applicationId: string,
) {
  return { cleared: await deps.subscriptions.remove(applicationId) };
}
