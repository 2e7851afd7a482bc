// What a close left running: the timers still set and the sockets still open that were made since tracking began,
// as async_hooks reports them. A host's close must leave none (Kubernetes' graceful shutdown waits for the process
// to exit); one left over also kept Jest from exiting ("did not exit one second after the test run").
import { createHook } from 'node:async_hooks';

interface Made {
  type: 'Timeout' | 'TCPWRAP';
  resource: { hasRef?: () => boolean; _destroyed?: boolean };
  /** The first frames outside node itself: who made it. */
  where: string;
}

export interface RunningTracker {
  /**
   * Waits (without a timer of its own) up to `boundMs` for the sockets made since tracking began to close, then
   * lists what is still there of them and of the timers: each as its type and who made it. Unref'd timers do not
   * keep a process alive and are left out.
   */
  leftRunning(boundMs?: number): Promise<string[]>;
  /** Stops tracking. */
  stop(): void;
}

const TRACKED = new Set(['Timeout', 'TCPWRAP']);

/** The first frames outside node itself, or undefined for Jest's own (its reporter's status timer). */
function madeBy(stack: string | undefined): string | undefined {
  const frames = (stack ?? '').split('\n').slice(1);
  const ours = frames.filter((f) => !f.includes('node:') && !f.includes('left-running'));
  if (/[/\\](@jest\+|jest-)/.test(ours[0] ?? '')) return undefined;
  return ours
    .slice(0, 3)
    .map((f) => f.trim().replace(/^at /, ''))
    .join(' < ');
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Starts noting every timer and socket made from now on, until each is cleared, fires or closes. */
export function trackRunning(): RunningTracker {
  const made = new Map<number, Made>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (!TRACKED.has(type)) return;
      const where = madeBy(new Error().stack);
      if (where === undefined) return;
      made.set(id, { type: type as Made['type'], resource: resource as Made['resource'], where });
    },
    destroy(id) {
      made.delete(id);
    },
  });
  hook.enable();
  const sockets = () => [...made.values()].filter((m) => m.type === 'TCPWRAP');
  return {
    async leftRunning(boundMs = 10_000) {
      const deadline = performance.now() + boundMs;
      while (sockets().length > 0 && performance.now() < deadline) await turn();
      // A cleared timer's destroy is reported a turn or two later.
      for (let i = 0; i < 3; i++) await turn();
      return [...made.values()]
        .filter(
          (m) =>
            m.type === 'TCPWRAP' ||
            (!m.resource._destroyed && (m.resource.hasRef ? m.resource.hasRef() : true)),
        )
        .map((m) => `${m.type} made by ${m.where}`);
    },
    stop() {
      hook.disable();
    },
  };
}
