// Finds the application scopes whose keys need a scheduled lifecycle step, so a rotation tick touches only those
// instead of every application: a NEXT key whose activation time has come, a RETIRING key past its publication
// window, or an ACTIVE key old enough to need a prepublished successor.
import type { SigningKeyStore } from './ports';
import type { KeySchedule } from './schedule';

/** Application ids (ascending, after `after`) with a lifecycle step due at `at`; at most `limit` of them. */
export async function dueApplicationScopes(
  store: SigningKeyStore,
  schedule: Pick<KeySchedule, 'rotateEverySeconds' | 'prepublishSeconds'>,
  at: Date,
  opts: { after?: string; limit: number },
): Promise<string[]> {
  // An ACTIVE key needs a successor once it is older than ROTATE_EVERY - PREPUBLISH.
  const prepublishFrom = new Date(
    at.getTime() - (schedule.rotateEverySeconds - schedule.prepublishSeconds) * 1000,
  );
  return store.readDueApplicationScopes({ at, prepublishFrom, after: opts.after ?? '', limit: opts.limit });
}
