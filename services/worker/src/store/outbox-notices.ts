// The outbox's wake-ups: a dedicated PostgreSQL connection LISTENing on `event_outbox`, which an operator's
// redelivery notifies (the changes that write rows do not: the drain's poll finds those, see
// jobs/event-delivery.ts). A lost connection is reopened after a pause; wake-ups missed meanwhile are caught by the poll.
import type { Logger } from '@svc/platform';
import { Client } from 'pg';

export const OUTBOX_CHANNEL = 'event_outbox';

export function listenForOutbox(
  databaseUrl: string,
  onNotice: () => void,
  logger: Logger,
  retryMs = 1000,
): { close(): Promise<void> } {
  let closed = false;
  let client: Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  const reopen = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void open();
    }, retryMs);
  };

  async function open(): Promise<void> {
    const c = new Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', () => onNotice());
    c.on('error', (err) => {
      logger.warn({ dependency: 'postgres', error: err.message }, 'outbox listener lost its connection');
      void c.end().catch(() => undefined);
      if (client === c) reopen();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (closed) await c.end();
      // Rows committed while no one listened are due now.
      else onNotice();
    } catch (err) {
      logger.warn(
        { dependency: 'postgres', error: (err as Error).message },
        'outbox listener cannot connect',
      );
      await c.end().catch(() => undefined);
      if (client === c) reopen();
    }
  }

  void open();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
