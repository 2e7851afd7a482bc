// How long this test process has been held up: a timer's lateness, summed. A bound measured in a test (a request's
// time, /readyz's answer) is wall time, and on a loaded machine the process can sit unscheduled for seconds while
// nothing it waits for is slow; subtracting the stall over the same interval leaves the time the process could run.
//
// Hosts under test run in this process (startTestHost), so their own timers (query, connect, probe and readiness
// deadlines) are held up by exactly this much too. A wait on I/O (a stalled dependency, a missing timeout) is not a
// stall: the loop is idle and the meter's timer fires on time, so a bound exceeded by waiting still fails.

/** The meter's period. A held-up process shows as a tick arriving late. */
const TICK_MS = 20;
/** Lateness below this is timer jitter of an idle loop (about 0.4 ms a tick here), not a stall. */
const JITTER_MS = 2;

let timer: NodeJS.Timeout | undefined;
let last = 0;
let total = 0;

// Stopped after each test file: jest gives every file its own copy of this module, so each would leave its interval
// ticking for the rest of the worker. (An unref'd interval does not hold node at exit; the exit-time spin once blamed
// on it was a fault-proxy socket left unclosable by a failed reset, fault-proxy.ts.)
if (typeof afterAll === 'function') {
  afterAll(() => {
    clearInterval(timer);
    timer = undefined;
  });
}

function tick(): void {
  const now = performance.now();
  const late = now - last - TICK_MS;
  if (late > JITTER_MS) total += late;
  last = now;
}

/**
 * Milliseconds this process has been held up since the meter started (cumulative, monotonic; the first call starts
 * it). Take it before and after an interval: the difference is how much of that interval was not the code's.
 */
export function stalledMs(): number {
  if (!timer) {
    last = performance.now();
    timer = setInterval(tick, TICK_MS).unref();
  }
  // A stall still under way counts too: the tick that will report it may not have run yet.
  const pending = performance.now() - last - TICK_MS;
  return total + (pending > JITTER_MS ? pending : 0);
}

/** Runs `fn` and says how long it took (wall) and how much of that this process was held up. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; stalledMs: number }> {
  const stalledBefore = stalledMs();
  const started = performance.now();
  const value = await fn();
  return {
    value,
    ms: Math.round(performance.now() - started),
    stalledMs: Math.round(stalledMs() - stalledBefore),
  };
}
