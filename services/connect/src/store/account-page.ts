// What the account page reads and writes in PostgreSQL (Prisma only): the applications an account has used with
// their sectors and its consent, its passkeys (add, rename, remove but never the last), and its sector sessions.
import { personActor } from '@svc/audit';
import { createAuditedChanges } from '@svc/audit/stores';
import type { Db } from '@svc/db';
import { createSectorSubjectsStore } from '@svc/issuance/stores';
import type { Clock } from '@svc/platform';
import { type NewPasskey, PASSKEY_TX_TIMEOUT_MS, type PasskeyOwner, passkeyRow } from '@svc/signin';
import type { ClaimKey } from '@svc/token-core';
import type { AccountChangePorts, AccountPageStore, RemoveResult, UsedApplication } from '../domain/ports';

/**
 * A person's account-page changes over `db`: the account-page and sector-subject stores bound to each change's
 * transaction, its audit row appended before commit. Bound to no one: the domain names the person of each change
 * (`as(personActor(accountId, request))`).
 */
export function createAccountChanges(db: Db, clock: Clock) {
  return createAuditedChanges<AccountChangePorts>(db, {
    context: personActor('(unbound)'),
    clock,
    bind: (tx) => ({
      accountPage: createAccountPageStore(tx),
      sectorSubjects: createSectorSubjectsStore(tx),
    }),
  });
}

export function createAccountPageStore(db: Db): AccountPageStore {
  /** Locks the account row for the rest of the transaction: its passkey changes run one at a time. */
  const lockAccount = (tx: Pick<Db, '$queryRaw'>, accountId: string) =>
    tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;

  return {
    account(accountId: string) {
      return db.account.findUnique({
        where: { id: accountId },
        select: { id: true, email: true, status: true, locale: true },
      });
    },

    /**
     * The account, if ACTIVE, still under the authority version a session signed in under and (when given) still
     * holding the passkey it signed in with.
     */
    async activeHolder(
      accountId: string,
      authorityVersion: number | undefined,
      passkeyId: string | undefined,
    ): Promise<boolean> {
      const account = await db.account.findFirst({
        where: { id: accountId, status: 'ACTIVE' },
        select: { authorityVersion: true },
      });
      if (!account || account.authorityVersion !== authorityVersion) return false;
      if (!passkeyId) return true;
      return (await db.passkey.count({ where: { id: passkeyId, accountId } })) === 1;
    },

    async passkeyIdOf(credentialId: string): Promise<string | undefined> {
      return (await db.passkey.findUnique({ where: { credentialId }, select: { id: true } }))?.id;
    },

    async setLocale(accountId: string, locale: string): Promise<void> {
      await db.account.updateMany({ where: { id: accountId, NOT: { locale } }, data: { locale } });
    },

    /** Applications the account has had a session with or decided a claim for, with their sectors. */
    async usedApplications(accountId: string): Promise<UsedApplication[]> {
      const ids = await db.$queryRaw<{ application_id: string }[]>`
        SELECT DISTINCT application_id FROM sessions WHERE account_id = ${accountId}::uuid
        UNION
        SELECT DISTINCT application_id FROM claim_grants WHERE account_id = ${accountId}::uuid`;
      if (ids.length === 0) return [];
      const rows = await db.application.findMany({
        where: { id: { in: ids.map((r) => r.application_id) } },
        select: {
          id: true,
          anchor: true,
          names: true,
          defaultLocale: true,
          claimRequirements: true,
          sector: { select: { id: true, name: true } },
        },
        orderBy: { createdAt: 'asc' },
      });
      return rows.map((r) => ({ ...r, names: (r.names ?? {}) as Record<string, string> }));
    },

    async grants(accountId: string) {
      return db.claimGrant.findMany({
        where: { accountId },
        select: { applicationId: true, claim: true, state: true },
      });
    },

    async setConsent(
      accountId: string,
      applicationId: string,
      decisions: Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>>,
    ): Promise<void> {
      await db.$transaction(
        Object.entries(decisions).map(([claim, state]) =>
          db.claimGrant.upsert({
            where: { accountId_applicationId_claim: { accountId, applicationId, claim } },
            create: { accountId, applicationId, claim, state },
            update: { state },
          }),
        ),
      );
    },

    passkeys(accountId: string) {
      return db.passkey.findMany({
        where: { accountId },
        select: {
          id: true,
          name: true,
          credentialId: true,
          transports: true,
          createdAt: true,
          lastUsedAt: true,
        },
        orderBy: { createdAt: 'asc' },
      });
    },

    /**
     * Adds a verified passkey to a signed-in account. Its owner, already signed in with a passkey, keeps the same
     * authority over the account, so sessions stay valid (authorityVersion unchanged); `beforeCommit` tells the
     * owner inside the transaction, and a failure adds nothing.
     */
    async addPasskey(
      accountId: string,
      passkey: NewPasskey,
      beforeCommit: (owner: PasskeyOwner) => Promise<void>,
    ): Promise<boolean> {
      return db.$transaction(
        async (tx) => {
          if ((await lockAccount(tx, accountId)).length === 0) return false;
          const account = await tx.account.findUniqueOrThrow({
            where: { id: accountId },
            select: { email: true, locale: true },
          });
          await tx.passkey.create({ data: passkeyRow(accountId, passkey) });
          if (account.email)
            await beforeCommit({ id: accountId, email: account.email, locale: account.locale });
          return true;
        },
        { timeout: PASSKEY_TX_TIMEOUT_MS },
      );
    },

    async renamePasskey(accountId: string, passkeyId: string, name: string): Promise<boolean> {
      const res = await db.passkey.updateMany({ where: { id: passkeyId, accountId }, data: { name } });
      return res.count === 1;
    },

    /**
     * Removes one of the account's passkeys unless it is the last; concurrent removals cannot empty the account.
     * Removal changes the account's identity authority (authorityVersion + 1), in the same transaction: every sign-in
     * held on the pages is dropped at its next request, and every live session of the account issued under an
     * earlier version (or before sessions recorded one) is revoked now (`authority_changed`), which its next
     * refresh would have refused anyway (AuthorizationArtifactStale): its access tokens stop answering at once.
     */
    async removePasskey(accountId: string, passkeyId: string, now: Date): Promise<RemoveResult> {
      return db.$transaction(async (tx) => {
        if ((await lockAccount(tx, accountId)).length === 0) return { outcome: 'not_found' };
        const mine = await tx.passkey.findMany({ where: { accountId }, select: { id: true } });
        if (!mine.some((p) => p.id === passkeyId)) return { outcome: 'not_found' };
        if (mine.length <= 1) return { outcome: 'last' };
        await tx.passkey.delete({ where: { id: passkeyId } });
        const { authorityVersion } = await tx.account.update({
          where: { id: accountId },
          data: { authorityVersion: { increment: 1 } },
          select: { authorityVersion: true },
        });
        const rows = await tx.$queryRaw<{ id: string }[]>`
          UPDATE sessions SET status = 'REVOKED', revoked_reason = 'authority_changed', revoked_at = ${now}
          WHERE account_id = ${accountId}::uuid AND status IN ('ACTIVE', 'SUSPENDED')
            AND authority_version IS DISTINCT FROM ${authorityVersion}::int
          RETURNING id`;
        return { outcome: 'removed', authorityVersion, revoked: rows.map((r) => r.id) };
      });
    },

    /** Revokes the account's live sessions (human and workload) under every application of a sector. */
    async revokeSectorSessions(accountId: string, sectorId: string, now: Date): Promise<string[]> {
      const rows = await db.$queryRaw<{ id: string }[]>`
        UPDATE sessions s SET status = 'REVOKED', revoked_reason = 'subject_reset', revoked_at = ${now}
        FROM applications a
        WHERE a.id = s.application_id AND a.sector_id = ${sectorId}::uuid
          AND s.account_id = ${accountId}::uuid AND s.status IN ('ACTIVE', 'SUSPENDED')
        RETURNING s.id`;
      return rows.map((r) => r.id);
    },
  };
}
