// Commands for events to applications: an application's subscription (`app events set|show|clear`) and its
// outbox (`events list|redeliver`) (CONTRACTS "Events to applications").
import { EVENT_NAMES, type TargetPolicy } from '@svc/events';
import {
  clearEventSubscription,
  listApplicationEvents,
  redeliverApplicationEvent,
  setEventSubscription,
  showEventSubscription,
} from '../index';
import type { AdminContext } from './context';
import { defineCommand, oneFlagCommand } from './registry';

const STATUSES = ['pending', 'delivered', 'failed'] as const;
/** Without a policy from its adapter a command applies the strictest one. */
const STRICT: TargetPolicy = { production: true, allowPrivate: false };
const policyOf = (ctx: AdminContext) => ctx.eventTargets?.() ?? STRICT;

export const eventCommands = [
  defineCommand({
    name: 'app events set',
    http: { method: 'PATCH', path: '/v1/applications/:app/events' },
    synopsis: `--app A --url URL [--event ${EVENT_NAMES.join('|')} ...]   (every event by default)`,
    flags: { app: {}, url: {}, event: { list: true } },
    parse: (f) => ({
      app: f.anchor('app'),
      url: f.required('url').trim(),
      events: f.list('event'),
    }),
    run: (ctx, i) =>
      setEventSubscription(
        ctx.provisioning(),
        policyOf(ctx),
        i.app,
        { url: i.url, events: i.events },
        ctx.clock,
      ),
  }),
  oneFlagCommand({
    name: 'app events show',
    flag: 'app',
    http: { method: 'GET', path: '/v1/applications/:app/events' },
    synopsis: '--app A',
    read: (f, flag) => f.anchor(flag),
    run: (ctx, app) => showEventSubscription(ctx.provisioning(), app),
  }),
  oneFlagCommand({
    name: 'app events clear',
    flag: 'app',
    http: { method: 'DELETE', path: '/v1/applications/:app/events' },
    synopsis: '--app A   (no more events; those already written are still delivered)',
    read: (f, flag) => f.anchor(flag),
    run: (ctx, app) => clearEventSubscription(ctx.provisioning(), app),
  }),
  defineCommand({
    name: 'events list',
    // Newest first with its own --limit (up to 1000): the command's list, not the API's paged collections.
    http: { method: 'GET', path: '/v1/events' },
    synopsis: '--app A [--status pending|delivered|failed] [--limit N]   (newest first, 100 by default)',
    flags: { app: {}, status: {}, limit: {} },
    parse: (f) => ({
      app: f.anchor('app'),
      status: f.oneOf('status', STATUSES),
      limit: f.int('limit', { min: 1, max: 1000 }),
    }),
    run: (ctx, i) =>
      listApplicationEvents(
        ctx.provisioning(),
        i.app,
        i.status ? (i.status.toUpperCase() as Uppercase<typeof i.status>) : undefined,
        i.limit,
      ),
  }),
  oneFlagCommand({
    name: 'events redeliver',
    flag: 'id',
    http: { method: 'POST', path: '/v1/events/:id/redeliver' },
    synopsis: '--id ID   (pending again and due now; its attempts are kept)',
    run: (ctx, id) => redeliverApplicationEvent(ctx.provisioning(), id, ctx.clock),
  }),
];
