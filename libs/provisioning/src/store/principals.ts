// Store of principals and their credentials: accounts (with claim grants and SSO links), agents and automations,
// access keys and public keys, and the email-domain policies. It never decides: provisioning checks the operator's
// input and asks it to write.
import type { Db } from '@svc/db';
import {
  accountEventOutboxSql,
  EVENT_TXN_OF_TRANSACTION,
  sessionRevokedOutboxSql,
} from '@svc/events/shared-sql';
import type { PrincipalsStore } from '../domain/ports';
import { unlessDuplicate } from './tenancy';

/**
 * account-disabled / account-enabled for every subscribed application that knows the account ($1); the txn is the
 * audited change's audit row id (EVENT_TXN_OF_TRANSACTION).
 */
const ACCOUNT_DISABLED_EVENTS = accountEventOutboxSql(
  'account-disabled',
  '$1::uuid',
  EVENT_TXN_OF_TRANSACTION,
);
const ACCOUNT_ENABLED_EVENTS = accountEventOutboxSql('account-enabled', '$1::uuid', EVENT_TXN_OF_TRANSACTION);
/**
 * A disabled account's live sessions end (its authority version moved: their next refresh is refused, their
 * introspection not active): each subscribed application hears session-revoked (account_suspended) for them.
 */
const SUSPENDED_ACCOUNT_SESSION_EVENTS = `WITH ended AS (
    SELECT id, application_id, subject FROM sessions
    WHERE account_id = $1::uuid AND status IN ('ACTIVE', 'SUSPENDED') AND expires_at > now())
  ${sessionRevokedOutboxSql('ended', `'account_suspended'::text`, EVENT_TXN_OF_TRANSACTION)}`;

export function createPrincipalsStore(db: Db): PrincipalsStore {
  return {
    async insertAccount(account) {
      if (await db.account.findUnique({ where: { email: account.email }, select: { id: true } }))
        return undefined;
      const row = await unlessDuplicate(
        db.account.create({ data: { ...account, emailVerified: true }, select: { id: true } }),
      );
      return row?.id;
    },
    async findAccount(id) {
      return (await db.account.findUnique({ where: { id } })) ?? undefined;
    },
    // The status, and the events it causes when it moves (an account leaving or coming back to ACTIVE), commit
    // together.
    async setAccountStatus(id, status) {
      await db.$transaction(async (tx) => {
        const [before] = await tx.$queryRaw<{ status: string }[]>`
          SELECT status::text FROM accounts WHERE id = ${id}::uuid FOR UPDATE`;
        await tx.account.update({ where: { id }, data: { status, authorityVersion: { increment: 1 } } });
        if (!before || (before.status === 'ACTIVE') === (status === 'ACTIVE')) return;
        if (status === 'ACTIVE') {
          await tx.$executeRawUnsafe(ACCOUNT_ENABLED_EVENTS, id);
          return;
        }
        await tx.$executeRawUnsafe(SUSPENDED_ACCOUNT_SESSION_EVENTS, id);
        await tx.$executeRawUnsafe(ACCOUNT_DISABLED_EVENTS, id);
      });
    },
    // Linking the authority it already has changes nothing; another one makes the old sessions
    // AuthorizationArtifactStale at their next refresh (the same statement moves the authority version).
    async setSsoAuthority(accountId, authority) {
      const linked = await db.$executeRaw`
        UPDATE accounts
           SET authority_version = authority_version + CASE WHEN sso_authority IS DISTINCT FROM ${authority} THEN 1 ELSE 0 END,
               sso_authority = ${authority}, updated_at = now()
         WHERE id = ${accountId}::uuid`;
      return linked > 0;
    },
    async putClaimGrant(grant) {
      const { accountId, applicationId, claim, state } = grant;
      const key = { accountId_applicationId_claim: { accountId, applicationId, claim } };
      await db.claimGrant
        .upsert({ where: key, create: grant, update: { state } })
        // Two grants racing to create the same row: the loser updates the winner's row instead.
        .catch(async (err: { code?: unknown }) => {
          if (err?.code !== 'P2002') throw err;
          await db.claimGrant.update({ where: key, data: { state } });
        });
    },
    async putEmailDomainPolicy(domain, data) {
      await db.emailDomainPolicy.upsert({ where: { domain }, create: { domain, ...data }, update: data });
    },
    async insertWorkload(workload) {
      return (await db.workload.create({ data: workload, select: { id: true } })).id;
    },
    async findWorkload(id) {
      return (await db.workload.findUnique({ where: { id } })) ?? undefined;
    },
    async revokeWorkload(id) {
      await db.workload.updateMany({ where: { id, status: 'ACTIVE' }, data: { status: 'REVOKED' } });
    },
    async nextWorkloadGeneration(id) {
      const [row] = await db.$queryRaw<{ generation: number }[]>`
        UPDATE workloads SET generation = generation + 1 WHERE id = ${id}::uuid AND status = 'ACTIVE'
        RETURNING generation`;
      return row?.generation;
    },
    async insertAccessKey(key) {
      await db.accessKey.create({ data: key });
    },
    async insertPublicKey(key) {
      await db.publicKey.create({ data: key });
    },
    async revokeCredential(which, at) {
      const revoked = { status: 'REVOKED' as const, revokedAt: at };
      if ('accessKey' in which) {
        const key = await db.accessKey.findUnique({
          where: { identifier: which.accessKey },
          select: { id: true },
        });
        if (!key) return false;
        await db.accessKey.updateMany({ where: { id: key.id, status: 'ACTIVE' }, data: revoked });
        return true;
      }
      const key = await db.publicKey.findUnique({ where: { kid: which.publicKey }, select: { id: true } });
      if (!key) return false;
      await db.publicKey.updateMany({ where: { id: key.id, status: 'ACTIVE' }, data: revoked });
      return true;
    },
  };
}
