// The events stores, for wiring only (`@svc/events/stores`): rules never import this module.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ResolveHost } from '../domain/ports';

export { createOutboxStore } from './outbox';
export { createSubscriptionsStore } from './subscriptions';

/** Every address the system resolver gives a host (an IP literal is itself). */
export const resolveHost: ResolveHost = async (host) => {
  if (isIP(host)) return [host];
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
};
