// The actors of the trail's fixed callers and the helpers that describe a change's fields.
import { userInfo } from 'node:os';
import { type AuditActor, type AuditChanges, type AuditContext, REDACTED } from './types';

/** The admin CLI: the operating-system user who ran it (`pnpm admin`). */
export function cliActor(env: { USER?: string; LOGNAME?: string } = {}): AuditContext {
  let user = env.USER ?? env.LOGNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return { actor: { kind: 'cli', id: user, name: 'pnpm admin' } };
}

/** A worker job (`keys-rotate`, `audit-retention`, ...). */
export function workerActor(job: string): AuditContext {
  return { actor: { kind: 'worker', id: job, name: 'worker' } };
}

/** A person acting on their own account page: their internal account id. */
export function personActor(
  accountId: string,
  request: { requestId?: string | null; sourceAddress?: string | null; userAgent?: string | null } = {},
): AuditContext {
  return { actor: { kind: 'person', id: accountId, name: null }, ...request };
}

/** An operator key over the management API, with the request that carried the change. */
export function operatorKeyActor(
  key: { id: string; name: string },
  request: { requestId?: string | null; sourceAddress?: string | null; userAgent?: string | null } = {},
): AuditContext {
  const actor: AuditActor = { kind: 'operator_key', id: key.id, name: key.name };
  return { actor, ...request };
}

/** An initial access token registering a client at the OIDC host's POST /register (RFC 7591): its id. */
export function registrationTokenActor(
  token: { id: string },
  request: { requestId?: string | null; sourceAddress?: string | null; userAgent?: string | null } = {},
): AuditContext {
  return { actor: { kind: 'registration_token', id: token.id, name: 'initial access token' }, ...request };
}

/** The fields of something created: each `{from: null, to: value}` (undefined fields left out). */
export function created(fields: Record<string, unknown>): AuditChanges {
  const out: AuditChanges = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = { from: null, to: v };
  return out;
}

/** One field's move. */
export function changed(from: unknown, to: unknown) {
  return { from: from ?? null, to: to ?? null };
}

/** A secret that was set, replaced or cleared: never its value. */
export function secretChanged(had: boolean, has: boolean) {
  return { from: had ? REDACTED : null, to: has ? REDACTED : null };
}
