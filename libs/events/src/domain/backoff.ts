// When a failed delivery is tried again (CONTRACTS: exponential from 1 s up to 1 hour between tries, for 72 hours,
// then failed).

export const FIRST_RETRY_MS = 1000;
export const MAX_RETRY_MS = 3_600_000;
export const GIVE_UP_AFTER_MS = 72 * 3_600_000;

/**
 * The next attempt after `attempts` failed ones (1 after the first), or undefined when the event has been retried
 * for 72 hours since it was written and is failed.
 */
export function nextAttemptAt(createdAt: Date, attempts: number, now: Date): Date | undefined {
  const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
  const next = now.getTime() + wait;
  if (next - createdAt.getTime() > GIVE_UP_AFTER_MS) return undefined;
  return new Date(next);
}
