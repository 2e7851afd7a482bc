// What PostgreSQL says about the durability of this role's commits: `synchronous_commit` and the standbys a commit
// waits for (`synchronous_standby_names`). Plain settings, readable by any role and through PgBouncer; the
// replication views' details are not (they need pg_read_all_stats), so they are not read.
import type { Db } from '@svc/db';

export interface CommitSettings {
  synchronousCommit: string;
  synchronousStandbyNames: string;
}

export async function readCommitSettings(db: Db): Promise<CommitSettings> {
  const [row] = await db.$queryRaw<{ commit: string; standbys: string }[]>`
    SELECT current_setting('synchronous_commit') AS commit,
           current_setting('synchronous_standby_names') AS standbys`;
  return { synchronousCommit: row?.commit ?? '', synchronousStandbyNames: row?.standbys ?? '' };
}
