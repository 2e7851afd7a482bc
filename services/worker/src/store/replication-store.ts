// What PostgreSQL says about the durability of this role's commits: `synchronous_commit`, the standbys a commit
// waits for (`synchronous_standby_names`) and how many streaming replicas are attached (pg_stat_replication's rows:
// any role sees them, only their details need pg_read_all_stats, which are not read). Readable through PgBouncer.
import type { Db } from '@svc/db';

export interface CommitSettings {
  synchronousCommit: string;
  synchronousStandbyNames: string;
  /** Streaming replicas attached to this server now (WAL senders). */
  attachedReplicas: number;
}

export async function readCommitSettings(db: Db): Promise<CommitSettings> {
  const [row] = await db.$queryRaw<{ commit: string; standbys: string; replicas: number }[]>`
    SELECT current_setting('synchronous_commit') AS commit,
           current_setting('synchronous_standby_names') AS standbys,
           (SELECT count(*) FROM pg_stat_replication)::int AS replicas`;
  return {
    synchronousCommit: row?.commit ?? '',
    synchronousStandbyNames: row?.standbys ?? '',
    attachedReplicas: row?.replicas ?? 0,
  };
}
