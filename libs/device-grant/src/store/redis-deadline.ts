// Deadlines on Redis's own clock for the poll script. A command the host gave up on (REDIS_COMMAND_TIMEOUT_MS, then
// 503 with Retry-After) is still on the wire when Redis is frozen or a partition holds it, and Redis runs it when it
// thaws: a poll the device was told failed would then count, and the held polls of a client that obeyed Retry-After,
// run back to back, each pushed its interval up by slow_down (5 s to 40 s in one outage). So each poll carries the
// Redis time past which its caller has given up, and the script compares it with Redis's TIME when it runs: a late
// command changes nothing. The comparison is on Redis's clock, the deadline is built from an estimate of how far
// Redis's clock is from this process's, read off every answer: never later than the truth, so a late command is
// always seen as late, and early by at most the fastest round trip seen (a timely poll misjudged late is a 503 too,
// and its answer corrects the estimate).
import type { Redis } from 'ioredis';

/** The estimate is replaced by a new reading, even a worse one, after this: clocks are adjusted, and drift. */
const REFRESH_MS = 60_000;

export interface RedisDeadlines {
  /** The Redis time (ms) after which a command sent now has been given up by the host. */
  deadline(): Promise<number>;
  /** Redis's time (ms) as a script read it while it ran, for a command whose answer has just arrived. */
  observe(redisMs: number): void;
}

/** `commandTimeoutMs`: how long the host waits for a command (REDIS_COMMAND_TIMEOUT_MS). */
export function redisDeadlines(redis: Redis, commandTimeoutMs: number): RedisDeadlines {
  /** Redis time minus this process's time: a lower bound (the script ran before its answer arrived). */
  let offset: number | undefined;
  let readAt = 0;
  // Real time, not the host's Clock: it is set against Redis's real clock and the command timeout's real timer.
  const local = () => Date.now();
  const observe = (redisMs: number) => {
    const now = local();
    const reading = redisMs - now;
    if (offset === undefined || reading > offset || now - readAt > REFRESH_MS) {
      offset = reading;
      readAt = now;
    }
  };
  return {
    async deadline() {
      if (offset === undefined) {
        const [seconds, micros] = await redis.time();
        observe(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000));
      }
      return local() + (offset as number) + commandTimeoutMs;
    },
    observe,
  };
}
