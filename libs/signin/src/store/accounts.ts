// Accounts, passkeys and claim grants as the sign-in steps need them (Prisma only).
import type { Db } from '@svc/db';
import type { ClaimKey } from '@svc/token-core';

export interface StoredPasskey {
  id: string;
  credentialId: string;
  accountId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
  userHandle: string;
}

/** A verified WebAuthn credential about to be stored. */
export interface NewPasskey {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  userHandle: string;
  /** Shown on the account page (the browser that made it). */
  name?: string;
}

/** Who is told when a passkey is added to an existing account. */
export interface PasskeyOwner {
  id: string;
  email: string;
  locale: string | null;
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

/** Profile columns an account can fill in on the details page, by claim key (email is the verified address). */
export const PROFILE_COLUMNS = {
  firstName: 'givenName',
  lastName: 'familyName',
  staticAvatar: 'picture',
  animatedAvatar: 'pictureAnimated',
} as const;
export type EditableClaim = keyof typeof PROFILE_COLUMNS;

export function createAccountStore(db: Db) {
  return {
    byEmail(email: string) {
      return db.account.findUnique({ where: { email } });
    },

    async passkeyByCredentialId(credentialId: string): Promise<StoredPasskey | undefined> {
      const row = await db.passkey.findUnique({ where: { credentialId } });
      return row
        ? {
            ...row,
            publicKey: new Uint8Array(row.publicKey) as Uint8Array<ArrayBuffer>,
            counter: Number(row.counter),
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
    ): Promise<{ accountId: string; added: boolean }> {
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
          return { accountId: account.id, added: Boolean(existing) };
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
export type AccountStore = ReturnType<typeof createAccountStore>;
