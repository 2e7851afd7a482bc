// Optional multi-process mode: with WEB_CONCURRENCY > 1 the first process forks that many workers sharing the
// listening port (node:cluster) and supervises them; each worker runs the host normally.
import cluster from 'node:cluster';
import type { Logger } from './logger';

/**
 * Call first in a host's main(). Returns true in the supervising process (which must then do nothing else),
 * false in a worker or when WEB_CONCURRENCY is 1 or unset.
 */
export function forkWorkers(logger: Logger, concurrency: number): boolean {
  if (!cluster.isPrimary || concurrency <= 1) return false;
  let stopping = false;
  for (let i = 0; i < concurrency; i++) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.warn({ pid: worker.process.pid, code, signal }, 'worker exited; starting a new one');
    setTimeout(() => cluster.fork(), 500);
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      const timer = setTimeout(() => process.exit(0), 15_000);
      timer.unref();
      cluster.on('exit', () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      });
    });
  }
  return true;
}
