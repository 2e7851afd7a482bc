// Store of the secrets sealed under the key-encryption key: signing keys' private halves (which record the KEK
// they were sealed under) and inquiries' confirmation keys (which do not). Pages by id; each rewrite is
// conditional on the ciphertext read, so concurrent reseals and hosts never lose or double-count a value.
import type { Db } from '@svc/db';

export interface SealedRow {
  id: string;
  /** The additional data the value is bound to (a signing key's kid, an inquiry's id). */
  aad: string;
  sealed: string;
}

/** Signing keys whose recorded KEK is not `kekId`, after `afterId`, at most `limit`, in id order. */
export function readSigningKeysNotUnder(db: Db, kekId: string, afterId: string, limit: number) {
  return db.$queryRaw<SealedRow[]>`
    SELECT id::text AS id, kid AS aad, private_key_enc AS sealed FROM signing_keys
    WHERE kek_id <> ${kekId} AND id > ${afterId}::uuid ORDER BY id LIMIT ${limit}`;
}

/** Replaces one signing key's sealed private half if it is still `was`; true when it did. */
export async function replaceSigningKeySeal(db: Db, row: SealedRow, sealed: string, kekId: string) {
  const n = await db.$executeRaw`
    UPDATE signing_keys SET private_key_enc = ${sealed}, kek_id = ${kekId}
    WHERE id = ${row.id}::uuid AND private_key_enc = ${row.sealed}`;
  return n === 1;
}

/** Inquiries holding a sealed confirmation key, after `afterId`, at most `limit`, in id order. */
export function readSealedConfirmationKeys(db: Db, afterId: string, limit: number) {
  return db.$queryRaw<SealedRow[]>`
    SELECT id::text AS id, id::text AS aad, confirmation_key_enc AS sealed FROM inquiries
    WHERE confirmation_key_enc IS NOT NULL AND id > ${afterId}::uuid ORDER BY id LIMIT ${limit}`;
}

/** Replaces one inquiry's sealed confirmation key if it is still `was`; true when it did. */
export async function replaceConfirmationKeySeal(db: Db, row: SealedRow, sealed: string) {
  const n = await db.$executeRaw`
    UPDATE inquiries SET confirmation_key_enc = ${sealed}
    WHERE id = ${row.id}::uuid AND confirmation_key_enc = ${row.sealed}`;
  return n === 1;
}
