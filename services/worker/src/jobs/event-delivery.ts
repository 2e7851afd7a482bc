// The outbox drain: `lanes` delivery passes run side by side, each claiming a batch (leased, FOR UPDATE SKIP LOCKED)
// and going again at once while batches come back full (a full batch also wakes the sleeping lanes: more is due).
// Between batches a lane sleeps `pollMs`, which is how new rows and due retries are found: the changes that write
// rows do not NOTIFY (a notifying transaction holds PostgreSQL's one notification lock through its commit, so
// every such change would commit one at a time); only an operator's redelivery does, and wakes the lanes at once.
// Nothing here holds delivery state: the outbox rows are the truth, so a stopped or killed worker loses nothing
// (its leased rows are due again at lease expiry).
import type { Logger } from '@svc/platform';
import { describeDependencyError, isDependencyFailure } from '@svc/platform';

export interface EventDrainOptions {
  /** One delivery pass; returns the rows it claimed. */
  deliver(): Promise<number>;
  batchSize: number;
  lanes: number;
  pollMs: number;
  logger: Logger;
}

export interface EventDrain {
  /** Wakes every sleeping lane (a notification). */
  wake(): void;
  /** Stops after the passes in flight; their outcomes are recorded. */
  stop(): Promise<void>;
}

export function startEventDrain(o: EventDrainOptions): EventDrain {
  let stopped = false;
  const sleepers = new Set<() => void>();
  const wakeAll = () => {
    for (const w of [...sleepers]) w();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  async function lane(): Promise<void> {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await o.deliver();
      } catch (err) {
        if (isDependencyFailure(err))
          o.logger.warn(
            { dependency: 'postgres', error: describeDependencyError(err) },
            'event delivery paused',
          );
        else o.logger.error({ err: { message: (err as Error).message } }, 'event delivery pass failed');
      }
      if (stopped) return;
      if (claimed >= o.batchSize) wakeAll();
      else await sleep(o.pollMs);
    }
  }

  const lanes = Array.from({ length: o.lanes }, () => lane());
  return {
    wake: wakeAll,
    async stop() {
      stopped = true;
      wakeAll();
      await Promise.all(lanes);
    },
  };
}
