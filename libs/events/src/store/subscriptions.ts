// Store of event subscriptions: one row per application (Prisma).
import type { Db } from '@svc/db';
import type { EventName } from '../domain/event-types';
import type { Subscription, SubscriptionsStore } from '../domain/ports';

const toSubscription = (r: {
  applicationId: string;
  url: string;
  events: string[];
  createdAt: Date;
  updatedAt: Date;
}): Subscription => ({ ...r, events: r.events as EventName[] });

export function createSubscriptionsStore(db: Db): SubscriptionsStore {
  return {
    async put(applicationId, url, events, at) {
      const row = await db.eventSubscription.upsert({
        where: { applicationId },
        create: { applicationId, url, events, createdAt: at, updatedAt: at },
        update: { url, events, updatedAt: at },
      });
      return toSubscription(row);
    },
    async find(applicationId) {
      const row = await db.eventSubscription.findUnique({ where: { applicationId } });
      return row ? toSubscription(row) : undefined;
    },
    async remove(applicationId) {
      return (await db.eventSubscription.deleteMany({ where: { applicationId } })).count > 0;
    },
  };
}
