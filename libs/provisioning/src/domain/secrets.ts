// KEK rotation: `pnpm admin secrets reseal` re-seals every secret a previous key (KEY_ENCRYPTION_KEYS_PREVIOUS)
// sealed under the current KEY_ENCRYPTION_KEY. Idempotent (a value already under the current key is left alone),
// resumable (it pages by id and each value is rewritten on its own) and safe while the fleet runs (each rewrite is
// conditional on the ciphertext it read, and every host opens under either key meanwhile).

import { changed } from '@svc/audit';
import { type Kek, openWithId, seal } from '@svc/token-core';
import { ProvisioningError } from '../errors';
import type { ProvisioningPorts, SealedRow, Uses } from './ports';

const FIRST_ID = '00000000-0000-0000-0000-000000000000';

interface Kind {
  /** The audit target's id: which secrets a page re-sealed. */
  name: string;
  read(afterId: string, limit: number): Promise<SealedRow[]>;
  replace(tx: ProvisioningPorts, row: SealedRow, sealed: string): Promise<boolean>;
}

/**
 * Re-seals under `kek` every secret sealed under one of its previous keys; returns how many it rewrote. A value
 * that no configured key opens stops the run (its operator must restore that key in KEY_ENCRYPTION_KEYS_PREVIOUS),
 * after what could be rewritten was.
 */
export async function resealSecrets(
  ports: Uses<'sealedSecrets' | 'changes'>,
  kek: Kek,
  batchSize = 200,
): Promise<{ resealed: number }> {
  const kinds: Kind[] = [
    {
      name: 'signing_keys',
      read: (after, limit) => ports.sealedSecrets.signingKeysNotUnder(kek.id, after, limit),
      replace: (tx, row, sealed) => tx.sealedSecrets.replaceSigningKeySeal(row, sealed, kek.id),
    },
    {
      name: 'inquiry_confirmation_keys',
      read: (after, limit) => ports.sealedSecrets.confirmationKeys(after, limit),
      replace: (tx, row, sealed) => tx.sealedSecrets.replaceConfirmationKeySeal(row, sealed),
    },
  ];
  let resealed = 0;
  let unopened = 0;
  for (const kind of kinds) {
    let after = FIRST_ID;
    for (;;) {
      const rows = await kind.read(after, batchSize);
      const fresh: { row: SealedRow; sealed: string }[] = [];
      for (const row of rows) {
        let opened: ReturnType<typeof openWithId>;
        try {
          opened = openWithId(kek, row.sealed, row.aad);
        } catch {
          unopened += 1;
          continue;
        }
        if (opened.kekId === kek.id) continue;
        fresh.push({ row, sealed: seal(kek, opened.plaintext, row.aad) });
        opened.plaintext.fill(0);
      }
      // One transaction and one audit row per page: the rewrites and their record commit together.
      if (fresh.length > 0) {
        resealed += await ports.changes.run(async (tx, audit) => {
          let n = 0;
          for (const f of fresh) if (await kind.replace(tx, f.row, f.sealed)) n += 1;
          if (n > 0) {
            audit.record({
              action: 'secrets.reseal',
              target: { type: 'sealed_secrets', id: kind.name },
              changes: { resealed: changed(null, n), kekId: changed(null, kek.id) },
            });
          }
          return n;
        });
      }
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1]?.id ?? after;
    }
  }
  if (unopened > 0) {
    throw new ProvisioningError(
      `${unopened} sealed secrets open under none of the configured keys (KEY_ENCRYPTION_KEY, KEY_ENCRYPTION_KEYS_PREVIOUS); ${resealed} were resealed. Add the key they were sealed under to KEY_ENCRYPTION_KEYS_PREVIOUS and run again`,
    );
  }
  return { resealed };
}
