// What the account page reads and writes in PostgreSQL (Prisma only): the applications an account has used with
// their sectors and its consent, its passkeys (add, rename, remove but never the last), and its sector sessions.
import { personActor } from '@svc/audit';
import { type ChainWaitBounds, createAuditedChanges } from '@svc/audit/stores';
import type { Db } from '@svc/db';
import {
  accountEventOutboxSql,
  EVENT_TXN_OF_TRANSACTION,
  sessionRevokedOutboxSql,
} from '@svc/events/shared-sql';
import { createSectorSubjectsStore } from '@svc/issuance/stores';
import type { Clock } from '@svc/platform';
import { type NewPasskey, PASSKEY_TX_TIMEOUT_MS, type PasskeyOwner, passkeyRow } from '@svc/signin';
import type { ClaimKey } from '@svc/token-core';
import type { AccountChangePorts, AccountPageStore, RemoveResult, UsedApplication } from '../domain/ports';

/**
 * A person's account-page changes over `db`: the account-page and sector-subject stores bound to each change's
 * transaction, its audit row appended before commit. Bound to no one: the domain names the person of each change
 * (`as(personActor(accountId, request))`). `chainWait`: the process's AUDIT_CHAIN_WAIT_MS and
 * AUDIT_WRITERS_PER_PROCESS.
 */
export function createAccountChanges(db: Db, clock: Clock, chainWait?: ChainWaitBounds) {
  return createAuditedChanges<AccountChangePorts>(db, {
    context: personActor('(unbound)'),
    clock,
    chainWait,
    bind: (tx) => ({
      accountPage: createAccountPageStore(tx),
      sectorSubjects: createSectorSubjectsStore(tx),
    }),
  });
}

// The events below are written inside the page's audited changes: their txn is the change's audit row id
// (EVENT_TXN_OF_TRANSACTION, filled in before commit).

/** credential-change for every subscribed application that knows the account ($1), change type $2. */
const CREDENTIAL_CHANGE_EVENTS = accountEventOutboxSql(
  'credential-change',
  '$1::uuid',
  EVENT_TXN_OF_TRANSACTION,
  `'changeType', $2::text`,
);

/**
 * The live sessions of an account ($1) issued under an authority version other than $2 (or before sessions
 * recorded one), revoked at $3 for a removed passkey, each with its session-revoked event (credential_removed) in
 * the same statement.
 */
const REVOKE_FOR_REMOVED_PASSKEY = `WITH revoked AS (
    UPDATE sessions SET status = 'REVOKED', revoked_reason = 'authority_changed', revoked_at = $3
    WHERE account_id = $1::uuid AND status IN ('ACTIVE', 'SUSPENDED')
      AND authority_version IS DISTINCT FROM $2::int
    RETURNING id, application_id, subject),
  events AS (${sessionRevokedOutboxSql('revoked', `'credential_removed'::text`, EVENT_TXN_OF_TRANSACTION)})
  SELECT id FROM revoked`;

/** The account's ($1) live sessions under a sector's ($2) applications, revoked at $3 with their events. */
const REVOKE_SECTOR_SESSIONS = `WITH revoked AS (
    UPDATE sessions s SET status = 'REVOKED', revoked_reason = 'subject_reset', revoked_at = $3
    FROM applications a
    WHERE a.id = s.application_id AND a.sector_id = $2::uuid
      AND s.account_id = $1::uuid AND s.status IN ('ACTIVE', 'SUSPENDED')
    RETURNING s.id, s.application_id, s.subject),
  events AS (${sessionRevokedOutboxSql('revoked', `'identifier_reset'::text`, EVENT_TXN_OF_TRANSACTION)})
  SELECT id FROM revoked`;

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
          await tx.$executeRawUnsafe(CREDENTIAL_CHANGE_EVENTS, accountId, 'create');
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
        const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
          REVOKE_FOR_REMOVED_PASSKEY,
          accountId,
          authorityVersion,
          now,
        );
        await tx.$executeRawUnsafe(CREDENTIAL_CHANGE_EVENTS, accountId, 'delete');
        return { outcome: 'removed', authorityVersion, revoked: rows.map((r) => r.id) };
      });
    },

    /** Revokes the account's live sessions (human and workload) under every application of a sector. */
    async revokeSectorSessions(accountId: string, sectorId: string, now: Date): Promise<string[]> {
      const rows = await db.$queryRawUnsafe<{ id: string }[]>(
        REVOKE_SECTOR_SESSIONS,
        accountId,
        sectorId,
        now,
      );
      return rows.map((r) => r.id);
    },
  };
}
