// The worker's event delivery: the outbox drain (jobs/event-delivery.ts) over the outbox store, the SET body builder
// (the applications' keys from the key ring), the logout token builder (the OIDC platform key) and the SSRF-checked push, woken by the outbox's notifications.
import type { Db } from '@svc/db';
import {
  BACKCHANNEL_LOGOUT_KIND,
  type DeliveryDeps,
  deliverDue,
  logoutTokenBody,
  SECURITY_EVENT_KIND,
  securityEventBody,
} from '@svc/events';
import { createPush } from '@svc/events/push';
import { createOutboxStore, resolveHost } from '@svc/events/stores';
import { createKeyRing, OIDC_SCOPE } from '@svc/keyring';
import type { Clock, Logger } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import type { EventsConfig } from './config';
import { type EventDrain, startEventDrain } from './jobs/event-delivery';
import type { WorkerMetrics } from './metrics';
import { listenForOutbox } from './store/outbox-notices';

export interface EventWorker {
  outbox: ReturnType<typeof createOutboxStore>;
  /** Starts the drain and the listener. */
  start(): void;
  close(): Promise<void>;
}

export function createEventWorker(c: {
  db: Db;
  kek: Kek;
  databaseUrl: string;
  config: EventsConfig;
  production: boolean;
  keyCacheTtlMs: number;
  clock: Clock;
  logger: Logger;
  metrics: WorkerMetrics;
}): EventWorker {
  const outbox = createOutboxStore(c.db);
  const keyRing = createKeyRing({ db: c.db, kek: c.kek, cacheTtlMs: c.keyCacheTtlMs, clock: c.clock });
  const pusher = createPush({
    production: c.production,
    allowPrivate: c.config.allowPrivateTargets,
    resolveHost,
    timeoutMs: c.config.timeoutMs,
  });
  const deps: DeliveryDeps = {
    outbox,
    bodies: {
      [SECURITY_EVENT_KIND]: securityEventBody({
        issuer: c.config.issuer,
        signerOf: (applicationId) => keyRing.signer(applicationId),
      }),
      [BACKCHANNEL_LOGOUT_KIND]: logoutTokenBody({
        issuer: c.config.oidcIssuer,
        signer: () => keyRing.signer(OIDC_SCOPE),
        clock: c.clock,
      }),
    },
    push: pusher.push,
    clock: c.clock,
    onFirstAttempt: (s) => c.metrics.eventLatency.observe(s),
    onFailure: (reason, final) => c.metrics.eventFailures.inc({ reason, final: String(final) }),
    onDelivered: () => c.metrics.eventsDelivered.inc(),
  };
  let drain: EventDrain | undefined;
  let listener: { close(): Promise<void> } | undefined;
  return {
    outbox,
    start() {
      drain = startEventDrain({
        deliver: () => deliverDue(deps, { batchSize: c.config.batchSize, leaseMs: c.config.leaseMs }),
        batchSize: c.config.batchSize,
        lanes: c.config.lanes,
        pollMs: c.config.pollMs,
        logger: c.logger,
      });
      listener = listenForOutbox(c.databaseUrl, () => drain?.wake(), c.logger);
    },
    async close() {
      await listener?.close();
      await drain?.stop();
      pusher.close();
    },
  };
}
