// Store of principals and their credentials: accounts (with claim grants and SSO links), agents and automations,
// access keys and public keys, and the email-domain policies. It never decides: provisioning checks the operator's
// input and asks it to write.
import type { AccountModel, Db, WorkloadModel } from '@svc/db';
import { unlessDuplicate } from './tenancy';

type WorkloadKind = 'AGENT' | 'AUTOMATION';

export interface NewAccount {
  email: string;
  givenName: string | null;
  familyName: string | null;
  picture: string | null;
  pictureAnimated: string | null;
}

/** The new account's id; undefined when the email is taken (checked first, and by the unique index). */
export async function insertAccount(db: Db, account: NewAccount): Promise<string | undefined> {
  if (await db.account.findUnique({ where: { email: account.email }, select: { id: true } }))
    return undefined;
  const row = await unlessDuplicate(
    db.account.create({ data: { ...account, emailVerified: true }, select: { id: true } }),
  );
  return row?.id;
}

export async function findAccount(db: Db, id: string): Promise<AccountModel | undefined> {
  return (await db.account.findUnique({ where: { id } })) ?? undefined;
}

/** A status change also moves the account's authority version, so its sessions see it on their next refresh. */
export async function setAccountStatus(
  db: Db,
  id: string,
  status: 'ACTIVE' | 'DISABLED' | 'DELETED',
): Promise<void> {
  await db.account.update({ where: { id }, data: { status, authorityVersion: { increment: 1 } } });
}

/**
 * Links the account to the SSO authority that governs it. A change of authority is an identity-authority change:
 * the same statement moves the account's authority version, so sessions issued under the old authority are
 * AuthorizationArtifactStale at their next refresh (linking the authority it already has changes nothing). False
 * when there is no such account.
 */
export async function setSsoAuthority(db: Db, accountId: string, authority: string): Promise<boolean> {
  const linked = await db.$executeRaw`
    UPDATE accounts
       SET authority_version = authority_version + CASE WHEN sso_authority IS DISTINCT FROM ${authority} THEN 1 ELSE 0 END,
           sso_authority = ${authority}, updated_at = now()
     WHERE id = ${accountId}::uuid`;
  return linked > 0;
}

export async function putClaimGrant(
  db: Db,
  grant: { accountId: string; applicationId: string; claim: string; state: 'GRANTED' | 'DENIED' },
): Promise<void> {
  const { accountId, applicationId, claim, state } = grant;
  const key = { accountId_applicationId_claim: { accountId, applicationId, claim } };
  await db.claimGrant
    .upsert({ where: key, create: grant, update: { state } })
    // Two grants racing to create the same row: the loser updates the winner's row instead.
    .catch(async (err: { code?: unknown }) => {
      if (err?.code !== 'P2002') throw err;
      await db.claimGrant.update({ where: key, data: { state } });
    });
}

export async function putEmailDomainPolicy(
  db: Db,
  domain: string,
  data: { policy: 'ALLOW' | 'BLOCK' | 'REQUIRE_SSO'; ssoAuthority: string | null },
): Promise<void> {
  await db.emailDomainPolicy.upsert({ where: { domain }, create: { domain, ...data }, update: data });
}

export async function insertWorkload(
  db: Db,
  workload: { kind: WorkloadKind; ownerAccountId: string; name: string },
): Promise<string> {
  return (await db.workload.create({ data: workload, select: { id: true } })).id;
}

export async function findWorkload(db: Db, id: string): Promise<WorkloadModel | undefined> {
  return (await db.workload.findUnique({ where: { id } })) ?? undefined;
}

/** Idempotent: an already revoked workload stays as it is. */
export async function revokeWorkload(db: Db, id: string): Promise<void> {
  await db.workload.updateMany({ where: { id, status: 'ACTIVE' }, data: { status: 'REVOKED' } });
}

/** The active workload's next generation; undefined when it is revoked. */
export async function nextWorkloadGeneration(db: Db, id: string): Promise<number | undefined> {
  const [row] = await db.$queryRaw<{ generation: number }[]>`
    UPDATE workloads SET generation = generation + 1 WHERE id = ${id}::uuid AND status = 'ACTIVE'
    RETURNING generation`;
  return row?.generation;
}

interface CredentialOwner {
  /** Exactly one of the two is set: the credential applies to one application or to one sector's applications. */
  applicationId: string | null;
  sectorId: string | null;
  accountId: string;
  workloadId: string | null;
}

export async function insertAccessKey(
  db: Db,
  key: CredentialOwner & { identifier: string; secretHash: string },
): Promise<void> {
  await db.accessKey.create({ data: key });
}

export async function insertPublicKey(
  db: Db,
  key: CredentialOwner & { kid: string; jwk: object },
): Promise<void> {
  await db.publicKey.create({ data: key });
}

/**
 * Revokes an access key (by identifier) or a public key (by kid); false when there is none. Idempotent: revoking
 * twice keeps the first revocation time.
 */
export async function revokeCredential(
  db: Db,
  which: { accessKey: string } | { publicKey: string },
  at: Date,
): Promise<boolean> {
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
}
