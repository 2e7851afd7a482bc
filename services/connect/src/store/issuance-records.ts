// connect's binding of the issuance core's records (applications, accounts, claim grants, terms, sector subjects,
// the session-change channel) to the IssuanceRecords port its domain reads them through.
import type { Db } from '@svc/db';
import {
  createTermsRevisionCache,
  currentAuthority,
  loadAccount,
  loadApplication,
  loadClaimView,
  publishSessionChanges,
  rotateSectorSubject,
} from '@svc/issuance';
import type { Clock } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { IssuanceRecords } from '../domain/ports';

export function createIssuanceRecords(
  db: Db,
  redis: Redis,
  opts: { subjectSecret: string; clock: Clock },
): IssuanceRecords {
  const termsRevision = createTermsRevisionCache(db);
  return {
    applicationById: (id) => loadApplication(db, { id }),
    account: (accountId) => loadAccount(db, accountId),
    claimView: (accountId, applicationId, requirements) =>
      loadClaimView(db, accountId, applicationId, requirements),
    authority: (accountId) => currentAuthority(db, accountId),
    termsRevision,
    async rotateSectorSubject(sectorId, accountId) {
      await rotateSectorSubject(
        db,
        opts.subjectSecret,
        sectorId,
        { kind: 'ACCOUNT', id: accountId },
        opts.clock,
      );
    },
    publishSessionChanges: (sessionIds) => publishSessionChanges(redis, sessionIds),
  };
}
