// Operator keys of the management API: created with a role (reader, editor, owner) and an optional lifetime, the
// secret (`mk_...`) shown once and stored only as its SHA-256; listed without it; revoked for good. `operatorKeyOf`
// finds a presented secret's key by its lookup prefix and compares the hash in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { changed, created, REDACTED } from '@svc/audit';
import type { Clock } from '@svc/platform';
import { ProvisioningError } from '../errors';
import type { OperatorKeyRecord, OperatorRole, Uses } from './ports';

export const OPERATOR_ROLES = ['reader', 'editor', 'owner'] as const satisfies readonly OperatorRole[];
export const OPERATOR_KEY_PREFIX = 'mk_';
/** How many characters of the secret after `mk_` index it (72 bits of the 256 random ones). */
const LOOKUP_LENGTH = 12;
const MAX_DAYS = 3650;
const DAY_MS = 86_400_000;
/** `mk_` then 43 base64url characters (32 random bytes). */
const SECRET_PATTERN = /^mk_[A-Za-z0-9_-]{43}$/;

/** An operator key as the CLI and the API show it: no secret, no hash. */
export interface OperatorKeyView {
  id: string;
  name: string;
  role: OperatorRole;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

function view(k: OperatorKeyRecord): OperatorKeyView {
  return {
    id: k.id,
    name: k.name,
    role: k.role,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Creates a key; the answer carries its secret, which is never shown again. */
export async function createOperatorKey(
  ports: Uses<'changes'>,
  input: { name: string; role: OperatorRole; expiresInDays?: number },
  clock: Clock,
): Promise<{
  operatorKey: { id: string; name: string; role: OperatorRole; expiresAt: Date | null };
  secret: string;
}> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new ProvisioningError('--name must be 1 to 200 characters');
  if (!(OPERATOR_ROLES as readonly string[]).includes(input.role))
    throw new ProvisioningError(`--role must be one of ${OPERATOR_ROLES.join(', ')}`);
  const days = input.expiresInDays;
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_DAYS))
    throw new ProvisioningError(`--expires-in-days must be an integer from 1 to ${MAX_DAYS}`);
  const secret = `${OPERATOR_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const made = await ports.changes.run(async (tx, audit) => {
    const key = await tx.operatorKeys.create({
      name,
      role: input.role,
      lookup: secret.slice(OPERATOR_KEY_PREFIX.length, OPERATOR_KEY_PREFIX.length + LOOKUP_LENGTH),
      secretHash: sha256(secret),
      expiresAt: days === undefined ? null : new Date(clock() + days * DAY_MS),
    });
    audit.record({
      action: 'operator_key.create',
      target: { type: 'operator_key', id: key.id },
      changes: created({ name: key.name, role: key.role, expiresAt: key.expiresAt, secret: REDACTED }),
    });
    return key;
  });
  return {
    operatorKey: { id: made.id, name: made.name, role: made.role, expiresAt: made.expiresAt },
    secret,
  };
}

export async function listOperatorKeys(
  ports: Uses<'operatorKeys'>,
): Promise<{ operatorKeys: OperatorKeyView[] }> {
  return { operatorKeys: (await ports.operatorKeys.list()).map(view) };
}

/** Revokes a key for good; revoking it again is refused (it says so), as is an unknown id. */
export async function revokeOperatorKey(
  ports: Uses<'changes'>,
  id: string,
  clock: Clock,
): Promise<{ id: string; revoked: true }> {
  return ports.changes.run(async (tx, audit) => {
    const at = new Date(clock());
    const outcome = await tx.operatorKeys.revoke(id, at);
    if (outcome === 'missing') throw new ProvisioningError('operator key not found');
    if (outcome === 'already')
      throw new ProvisioningError('the operator key is already revoked', { kind: 'conflict' });
    audit.record({
      action: 'operator_key.revoke',
      target: { type: 'operator_key', id },
      changes: { revokedAt: changed(null, at) },
    });
    return { id, revoked: true as const };
  });
}

/**
 * The live key a presented secret belongs to, or undefined (malformed, unknown, revoked or expired). The lookup
 * prefix finds the row; the whole secret's hash is then compared in constant time.
 */
export async function operatorKeyOf(
  ports: Uses<'operatorKeys'>,
  secret: string,
  now: number,
): Promise<OperatorKeyView | undefined> {
  if (!SECRET_PATTERN.test(secret)) return undefined;
  const row = await ports.operatorKeys.byLookup(
    secret.slice(OPERATOR_KEY_PREFIX.length, OPERATOR_KEY_PREFIX.length + LOOKUP_LENGTH),
  );
  if (!row) return undefined;
  const presented = Buffer.from(sha256(secret), 'hex');
  const stored = Buffer.from(row.secretHash, 'hex');
  if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return undefined;
  if (row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now)) return undefined;
  return view(row);
}
