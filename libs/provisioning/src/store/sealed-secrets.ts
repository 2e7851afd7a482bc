// Store of the secrets sealed under the key-encryption key: signing keys' private halves (which record the KEK
// they were sealed under) and inquiries' confirmation keys (which do not). Pages by id; each rewrite is
// conditional on the ciphertext read, so concurrent reseals and hosts never lose or double-count a value.
import type { Db } from '@svc/db';
import type { SealedRow, SealedSecretsStore } from '../domain/ports';

export function createSealedSecretsStore(db: Db): SealedSecretsStore {
  return {
    signingKeysNotUnder(kekId, afterId, limit) {
      return db.$queryRaw<SealedRow[]>`
        SELECT id::text AS id, kid AS aad, private_key_enc AS sealed FROM signing_keys
        WHERE kek_id <> ${kekId} AND id > ${afterId}::uuid ORDER BY id LIMIT ${limit}`;
    },
    async replaceSigningKeySeal(row, sealed, kekId) {
      const n = await db.$executeRaw`
        UPDATE signing_keys SET private_key_enc = ${sealed}, kek_id = ${kekId}
        WHERE id = ${row.id}::uuid AND private_key_enc = ${row.sealed}`;
      return n === 1;
    },
    confirmationKeys(afterId, limit) {
      return db.$queryRaw<SealedRow[]>`
        SELECT id::text AS id, id::text AS aad, confirmation_key_enc AS sealed FROM inquiries
        WHERE confirmation_key_enc IS NOT NULL AND id > ${afterId}::uuid ORDER BY id LIMIT ${limit}`;
    },
    async replaceConfirmationKeySeal(row, sealed) {
      const n = await db.$executeRaw`
        UPDATE inquiries SET confirmation_key_enc = ${sealed}
        WHERE id = ${row.id}::uuid AND confirmation_key_enc = ${row.sealed}`;
      return n === 1;
    },
  };
}
