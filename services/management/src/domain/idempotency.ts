// Idempotency-Key on POST (Stripe's model): the first request with a key runs and its answer is kept for 24 hours;
// the same key with the same request answers that answer again and changes nothing; with another request it is
// refused (422); while the first still runs, a second is told so (409) rather than running it twice. A change's answer
// is stored in the change's own transaction (routes/command-routes.ts), so the change and its replay commit together.
import { createHash } from 'node:crypto';
import { type Clock, ProblemError } from '@svc/platform';
import type { IdempotencyPort, StoredAnswer } from './ports';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still without an answer this long after it was made belongs to a request that died before its change
 * committed (the answer commits with the change, and no change outlives its transaction: at most AUDIT_CHAIN_WAIT_MS
 * queued, 10 s to start, 30 s to run), so the key may run anew instead of answering 409 for the rest of its 24 hours.
 */
export const ABANDONED_CLAIM_MS = 2 * 60 * 1000;
/** Visible ASCII, 1 to 255 characters (a UUID is the usual choice). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What identifies "the same request": the method, the path and the exact body bytes. */
export function requestHashOf(method: string, path: string, body: Buffer): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(body).digest('hex');
}

export function checkIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key))
    throw new ProblemError('invalid-input', {
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
    });
  return key;
}

/**
 * Runs `execute` once per (operator key, Idempotency-Key) within the window: the stored answer for a repeat, 422 for
 * a repeat with another request, 409 while the first is still running. `execute` says whether it stored the answer
 * itself (in the change's transaction: `stored`); a refusal it did not store is stored here (nothing changed). An
 * answer of 500 or more is not kept and the key is released: a key whose change committed has its answer and is
 * not released (IdempotencyPort.release), so a retry runs again only when nothing happened.
 */
export async function onceForKey(
  port: IdempotencyPort,
  clock: Clock,
  who: { operatorKeyId: string; key: string; requestHash: string },
  execute: () => Promise<{ answer: StoredAnswer; stored: boolean }>,
): Promise<{ answer: StoredAnswer; replayed: boolean }> {
  const now = clock();
  const claim = await port.claim(
    who.operatorKeyId,
    who.key,
    who.requestHash,
    new Date(now),
    new Date(now - IDEMPOTENCY_WINDOW_MS),
    new Date(now - ABANDONED_CLAIM_MS),
  );
  if (claim.kind === 'existing') {
    if (claim.requestHash !== who.requestHash)
      throw new ProblemError('idempotency-key-reused', {
        detail: 'this Idempotency-Key was first used with another method, path or body; use a new key',
      });
    if (!claim.answer)
      throw new ProblemError('idempotency-in-progress', {
        detail: 'the first request with this Idempotency-Key has not finished; retry shortly for its answer',
        headers: { 'Retry-After': '1' },
      });
    return { answer: claim.answer, replayed: true };
  }
  let outcome: { answer: StoredAnswer; stored: boolean };
  try {
    outcome = await execute();
  } catch (err) {
    await port.release(who.operatorKeyId, who.key).catch(() => undefined);
    throw err;
  }
  const { answer } = outcome;
  if (answer.status >= 500) await port.release(who.operatorKeyId, who.key);
  else if (!outcome.stored) await port.complete(who.operatorKeyId, who.key, answer, new Date(clock()));
  return { answer, replayed: false };
}
