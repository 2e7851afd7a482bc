// Per-resource locks of the management API's changes: a transaction-scoped advisory lock named after the resource, so
// that the API's changes to one resource (an If-Match check and the change it guards among them) run one at a time.
import type { Db } from '@svc/db';
import type { ResourceLocksPort } from '../domain/ports';

/** The namespace of these locks' names (hashed to the 64-bit advisory lock key with the resource's path). */
const PREFIX = 'management-resource:';

/** Locks over `tx`, an audited change's transaction: each lock is held until that transaction ends. */
export function createResourceLocks(tx: Db): ResourceLocksPort {
  return {
    async lock(resource) {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${PREFIX + resource}, 0))::text AS locked`;
    },
  };
}
