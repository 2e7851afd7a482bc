// connect's binding of the issuance core's records (applications, accounts, claim grants, terms, sector subjects,
// the session-change channel) to the IssuanceRecords port its domain reads them through: an adapter over the
// issuance core's own ports (IssuanceDeps.ports), which hold the statements.
import { createTermsRevisionCache, type IssuancePorts, loadClaimView } from '@svc/issuance';
import type { Clock } from '@svc/platform';
import type { IssuanceRecords } from '../domain/ports';

export function createIssuanceRecords(
  ports: IssuancePorts,
  opts: { subjectSecret: string; clock: Clock },
): IssuanceRecords {
  const termsRevision = createTermsRevisionCache(ports.agreements);
  return {
    applicationById: (id) => ports.applications.loadApplication({ id }),
    account: (accountId) => ports.accounts.loadAccount(accountId),
    claimView: (accountId, applicationId, requirements) =>
      loadClaimView(ports.accounts, accountId, applicationId, requirements),
    authority: (accountId) => ports.accounts.currentAuthority(accountId),
    termsRevision,
    async rotateSectorSubject(sectorId, accountId) {
      await ports.sectorSubjects.rotateSectorSubject(
        opts.subjectSecret,
        sectorId,
        { kind: 'ACCOUNT', id: accountId },
        opts.clock,
      );
    },
    publishSessionChanges: (sessionIds) => ports.sessionEvents.publishSessionChanges(sessionIds),
  };
}
