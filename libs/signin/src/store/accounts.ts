// Accounts, passkeys and claim grants as the sign-in steps need them (Prisma only).
import type { Db } from '@svc/db';
import type { HeldAuthority } from '@svc/issuance';
import type { ClaimKey } from '@svc/token-core';
import type { AccountStore, EditableClaim, NewPasskey, PasskeyOwner, StoredPasskey } from '../domain/ports';
import { PROFILE_COLUMNS } from '../domain/ports';

interface PasskeyRow {
  id: string;
  credential_id: string;
  account_id: string;
  public_key: Uint8Array;
  counter: bigint;
  transports: string[];
  user_handle: string;
  authority_version: number;
  subject_resets: number;
}

/** Long enough for the notice mail sent inside the transaction (bounded by its own timeout). */
export const PASSKEY_TX_TIMEOUT_MS = 20_000;

export function passkeyRow(accountId: string, p: NewPasskey) {
  return {
    credentialId: p.credentialId,
    accountId,
    publicKey: Buffer.from(p.publicKey),
    counter: BigInt(p.counter),
    transports: p.transports,
    userHandle: p.userHandle,
    name: p.name?.slice(0, 64) ?? null,
  };
}

export function createAccountStore(db: Db): AccountStore {
  return {
    byEmail(email: string) {
      return db.account.findUnique({ where: { email } });
    },

    async passkeyByCredentialId(credentialId: string): Promise<StoredPasskey | undefined> {
      const [row] = await db.$queryRaw<PasskeyRow[]>`
        SELECT p.id, p.credential_id, p.account_id, p.public_key, p.counter, p.transports, p.user_handle,
          a.authority_version, a.subject_resets
        FROM passkeys p JOIN accounts a ON a.id = p.account_id
        WHERE p.credential_id = ${credentialId}`;
      return row
        ? {
            id: row.id,
            credentialId: row.credential_id,
            accountId: row.account_id,
            publicKey: new Uint8Array(row.public_key) as Uint8Array<ArrayBuffer>,
            counter: Number(row.counter),
            transports: row.transports,
            userHandle: row.user_handle,
            authority: { version: row.authority_version, resets: row.subject_resets },
          }
        : undefined;
    },

    passkeysOf(accountId: string) {
      return db.passkey.findMany({
        where: { accountId },
        select: { credentialId: true, transports: true, userHandle: true },
      });
    },

    async touchPasskey(id: string, counter: number, now: Date): Promise<void> {
      await db.passkey.update({ where: { id }, data: { counter: BigInt(counter), lastUsedAt: now } });
    },

    /**
     * Registers a passkey for the owner of a verified address, creating the account on first sign-up. Adding a
     * credential to an existing account changes its identity authority (authorityVersion + 1) and runs
     * `beforeCommit` with the owner inside the transaction: if it throws (the owner could not be told), nothing
     * is added.
     */
    async registerPasskey(
      input: NewPasskey & { email: string; locale: string },
      beforeCommit?: (owner: PasskeyOwner) => Promise<void>,
    ): Promise<{ accountId: string; added: boolean; authority: HeldAuthority }> {
      return db.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`signup:${input.email}`}))`;
          const existing = await tx.account.findUnique({ where: { email: input.email } });
          const account = existing
            ? await tx.account.update({
                where: { id: existing.id },
                data: { emailVerified: true, authorityVersion: { increment: 1 } },
              })
            : await tx.account.create({
                data: { email: input.email, emailVerified: true, locale: input.locale },
              });
          await tx.passkey.create({ data: passkeyRow(account.id, input) });
          if (existing && beforeCommit)
            await beforeCommit({ id: account.id, email: input.email, locale: account.locale });
          // The authority this registration leaves (its own change included): the sign-up's flow records it.
          const authority = { version: account.authorityVersion, resets: account.subjectResets };
          return { accountId: account.id, added: Boolean(existing), authority };
        },
        { timeout: PASSKEY_TX_TIMEOUT_MS },
      );
    },

    /** Records consent decisions and any profile values entered, in one transaction. */
    async saveDetails(
      accountId: string,
      applicationId: string,
      decisions: Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>>,
      values: Partial<Record<EditableClaim, string>>,
    ): Promise<void> {
      const data: Record<string, string> = {};
      for (const [claim, value] of Object.entries(values))
        data[PROFILE_COLUMNS[claim as EditableClaim]] = value;
      await db.$transaction([
        ...Object.entries(decisions).map(([claim, state]) =>
          db.claimGrant.upsert({
            where: { accountId_applicationId_claim: { accountId, applicationId, claim } },
            create: { accountId, applicationId, claim, state },
            update: { state },
          }),
        ),
        ...(Object.keys(data).length ? [db.account.update({ where: { id: accountId }, data })] : []),
      ]);
    },
  };
}
