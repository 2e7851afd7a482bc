// Finds the application scopes whose keys need a scheduled lifecycle step, so a rotation tick touches only those
// instead of every application: a NEXT key whose activation time has come, a RETIRING key past its publication
// window, or an ACTIVE key old enough to need a prepublished successor.
import type { Db } from '@svc/db';
import type { KeySchedule } from './schedule';

/** Application ids (ascending, after `after`) with a lifecycle step due at `at`; at most `limit` of them. */
export async function dueApplicationScopes(
  db: Db,
  schedule: KeySchedule,
  at: Date,
  opts: { after?: string; limit: number },
): Promise<string[]> {
  const prepublishFrom = new Date(
    at.getTime() - (schedule.rotateEverySeconds - schedule.prepublishSeconds) * 1000,
  );
  const after = opts.after ?? '';
  const rows = await db.$queryRaw<{ scope_id: string }[]>`
    SELECT DISTINCT k.application_id::text AS scope_id
    FROM signing_keys k
    WHERE k.scope = 'APPLICATION' AND k.application_id IS NOT NULL
      AND k.application_id::text > ${after}
      AND (
        (k.status = 'NEXT' AND k.activates_at <= ${at})
        OR (k.status = 'RETIRING' AND k.publish_until <= ${at})
        OR (k.status = 'ACTIVE' AND COALESCE(k.activated_at, k.created_at) <= ${prepublishFrom}
            AND NOT EXISTS (
              SELECT 1 FROM signing_keys n
              WHERE n.scope = 'APPLICATION' AND n.application_id = k.application_id AND n.status = 'NEXT'))
      )
    ORDER BY scope_id
    LIMIT ${opts.limit}`;
  return rows.map((r) => r.scope_id);
}
