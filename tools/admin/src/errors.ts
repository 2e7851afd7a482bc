// Maps every failure to one operator message and an exit code; nothing internal (stack, SQL, ids) is printed.
import { AuditQueryError, AuditUnavailableError } from '@svc/audit';
import { ProvisioningError } from '@svc/provisioning';
import { UsageError } from '@svc/provisioning/commands';

export const EXIT = { ok: 0, refused: 1, usage: 2, unavailable: 3 } as const;

/** The environment is wrong (e.g. KEY_ENCRYPTION_KEY malformed): the command cannot run at all. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The command would seal or open under a key nobody named, or real secrets under the development key (exit 1). */
export class KekRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KekRefused';
  }
}

export function describeFailure(err: unknown): { code: number; message: string } {
  if (err instanceof UsageError) return { code: EXIT.usage, message: err.message };
  if (err instanceof ProvisioningError || err instanceof KekRefused) {
    return { code: EXIT.refused, message: err.message };
  }
  if (err instanceof ConfigError) return { code: EXIT.unavailable, message: err.message };
  if (err instanceof AuditQueryError) return { code: EXIT.usage, message: `--${err.field}: ${err.message}` };
  // Before the network check: a dependency failure behind it still means the change did not happen.
  if (err instanceof AuditUnavailableError) {
    return {
      code: EXIT.unavailable,
      message: 'refused: the audit trail could not be written, so nothing was changed',
    };
  }
  if (isUnreachable(err)) {
    return {
      code: EXIT.unavailable,
      message: 'cannot reach the database; check DATABASE_URL and that PostgreSQL is up',
    };
  }
  const prismaCode = (err as { code?: unknown } | null)?.code;
  if (prismaCode === 'P2002') return { code: EXIT.refused, message: 'refused: it already exists' };
  if (prismaCode === 'P2021' || prismaCode === 'P2022') {
    return { code: EXIT.unavailable, message: 'the database schema is not up to date; run pnpm db:migrate' };
  }
  const tag = typeof prismaCode === 'string' && /^[A-Z]\d{4}$/.test(prismaCode) ? ` (${prismaCode})` : '';
  return {
    code: EXIT.unavailable,
    message: `unexpected failure${tag}; rerun with ADMIN_DEBUG=1 for details on stderr`,
  };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  'P1001',
]);

function isUnreachable(err: unknown): boolean {
  // The pg driver adapter wraps socket errors; walk the cause chain looking for a network error code.
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const o = e as { code?: unknown; cause?: unknown; kind?: unknown; message?: unknown };
    if (typeof o.code === 'string' && NETWORK_CODES.has(o.code)) return true;
    if (o.kind === 'DatabaseNotReachable') return true;
    if (typeof o.message === 'string' && /ECONNREFUSED|Can't reach database/.test(o.message)) return true;
    e = o.cause;
  }
  return false;
}
