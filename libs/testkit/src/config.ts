// Configuration and time for tests: a host's configuration is built from a plain object through the host's own
// schema (never by setting and restoring process.env), and time is a settable clock (never a sleep).
import { type Clock, ConfigError, type Env } from '@svc/platform';

/**
 * The PostgreSQL and Redis of this test run: the DATABASE_URL and REDIS_URL the runner exported (each worktree
 * and CI job has its own), else the local defaults.
 */
export const testUrls = {
  database: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test',
  redis: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
};

/**
 * An environment object for a host's schema (`sessionConfigFromEnv(testEnv({ REFRESH_RETRY_WINDOW_MS: '500' }))`):
 * this run's PostgreSQL and Redis, silent logs, terms and application caches off so a test sees its own writes
 * at once, then `overrides`.
 */
export function testEnv(overrides: Env = {}): Env {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: testUrls.database,
    REDIS_URL: testUrls.redis,
    TERMS_CACHE_MS: '0',
    ...overrides,
  };
}

/** A clock the test sets and moves; it stands still in between. */
export interface SettableClock extends Clock {
  /** Jumps to `at` (ms since the epoch, or a Date). */
  set(at: number | Date): void;
  /** Moves forward (or back, when negative) by `ms`. */
  advance(ms: number): void;
}

/** A settable clock starting at `start` (default: now). */
export function settableClock(start: number | Date = Date.now()): SettableClock {
  let at = typeof start === 'number' ? start : start.getTime();
  const clock = (() => at) as SettableClock;
  clock.set = (to) => {
    at = typeof to === 'number' ? to : to.getTime();
  };
  clock.advance = (ms) => {
    at += ms;
  };
  return clock;
}

/**
 * The problems a host's schema (`read`, e.g. `oidcConfigFromEnv`) finds in testEnv(`env`): one `{variable, problem}`
 * per bad variable. Throws when the schema accepts it, so a test of a bad value cannot pass by accepting it.
 */
export function configProblems(read: (env: Env) => unknown, env: Env): ConfigError['problems'] {
  try {
    read(testEnv(env));
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
