// Whether an answered refresh rotation survives a PostgreSQL failover, from what PostgreSQL says of its commits: a
// rotation answered before a standby had it is lost when an asynchronous replica is promoted (its client's token is
// refused, and the token before it is accepted once more: RELIABILITY.md, "Distributed engines"). The worker says it
// once at start-up and serves it as a gauge; it cannot see replication done below PostgreSQL (RDS Multi-AZ
// instances, Cloud SQL HA, Aurora), where "no standby" is expected. It warns only where the loss can happen: an
// asynchronous replica attached, or synchronous_commit off. A lone server (a laptop, a managed instance) gets an
// info line, so a newcomer's first start and a managed fleet see no warning they can do nothing about.
import type { Logger } from '@svc/platform';
import type { CommitSettings } from './store/replication-store';

/**
 * `synchronous`: each commit waits for a named synchronous standby; `no_standby`: none is named, or this role's
 * commits do not wait for it (`synchronous_commit = local`); `off`: commits are answered before they are even
 * flushed on the primary.
 */
export type CommitDurability = 'synchronous' | 'no_standby' | 'off';

export function commitDurability(s: CommitSettings): CommitDurability {
  if (s.synchronousCommit === 'off') return 'off';
  if (s.synchronousCommit === 'local' || s.synchronousStandbyNames.trim() === '') return 'no_standby';
  return 'synchronous';
}

const RUNBOOK = 'deploy/RUNBOOK-database-failover.md';

/**
 * The start-up line: info when commits wait for a standby or no replica is attached, a warning when an attached
 * replica is asynchronous or commits are not even flushed, info when the settings cannot be read.
 */
export async function reportCommitDurability(
  read: () => Promise<CommitSettings>,
  logger: Logger,
): Promise<CommitDurability | undefined> {
  let settings: CommitSettings;
  try {
    settings = await read();
  } catch {
    logger.info("PostgreSQL's commit settings could not be read at start-up");
    return undefined;
  }
  const durability = commitDurability(settings);
  const fields = {
    durability,
    synchronousCommit: settings.synchronousCommit,
    synchronousStandbyNames: settings.synchronousStandbyNames,
    attachedReplicas: settings.attachedReplicas,
  };
  if (durability === 'synchronous') logger.info(fields, 'PostgreSQL commits wait for a synchronous standby');
  else if (durability === 'off')
    logger.warn(
      fields,
      `synchronous_commit is off: a crash of the PostgreSQL primary alone can lose answered refresh rotations (${RUNBOOK})`,
    );
  else if (settings.attachedReplicas === 0)
    logger.info(
      fields,
      'PostgreSQL commits wait for no standby and no streaming replica is attached: a failover needs a replica ' +
        `that has every commit (a synchronous standby, or a managed service that replicates below PostgreSQL; ${RUNBOOK})`,
    );
  else
    logger.warn(
      fields,
      'PostgreSQL commits wait for no synchronous standby: a failover to an asynchronous replica loses the refresh ' +
        'rotations it had not received (expected on RDS Multi-AZ instances, Cloud SQL HA and Aurora, which ' +
        `replicate below PostgreSQL; ${RUNBOOK})`,
    );
  return durability;
}
