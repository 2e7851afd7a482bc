// Every failure of a management route as RFC 9457 problem details: the body reader's and rate limiter's refusals,
// the provisioning rules' refusals by kind (404, 409, 422), a dependency outage (503), and anything else a bare 500
// with nothing internal in it (logged).

import { AuditQueryError, AuditUnavailableError } from '@svc/audit';
import { isDependencyFailure, type Logger, OAuthError, ProblemError, ServiceError } from '@svc/platform';
import { ProvisioningError } from '@svc/provisioning';
import type { Command } from '@svc/provisioning/commands';
import { inApiWords } from './command-input';

const BY_KIND = { not_found: 'not-found', conflict: 'conflict', refused: 'refused' } as const;

/** Whether a failure is the audit trail refusing the change (its row could not be written): 503, nothing changed. */
const isAuditUnavailable = (err: unknown) =>
  (err as { name?: unknown } | null)?.name === 'AuditUnavailableError';

export function toProblem(err: unknown, logger: Logger, command?: Command): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err instanceof ProvisioningError) {
    const { detail, pointer } = command
      ? inApiWords(command, err.message)
      : { detail: err.message, pointer: '' };
    const kind = BY_KIND[err.kind];
    return new ProblemError(kind, {
      detail,
      errors: kind === 'refused' && pointer ? [{ pointer, detail }] : undefined,
    });
  }
  if (err instanceof ServiceError) {
    if (err.reason === 'InvalidBody' && err.variant === 'tooLarge')
      return new ProblemError('too-large', {
        detail: 'the request body is larger than this host reads',
        headers: err.headers,
      });
    if (err.reason === 'InvalidBody') {
      const detail = err.publicMessage ?? 'the request is malformed';
      const kind = /Content-Type must be/.test(detail) ? 'unsupported-media-type' : 'invalid-input';
      return new ProblemError(kind, {
        detail,
        errors: kind === 'invalid-input' ? [{ pointer: '', detail }] : undefined,
      });
    }
    if (err.reason === 'TooManyAttempts')
      return new ProblemError('rate-limited', {
        detail: 'this operator key sent too many requests',
        headers: err.headers,
      });
    if (err.reason === 'TemporarilyUnavailable')
      return new ProblemError('unavailable', {
        detail: 'PostgreSQL or Redis is unavailable',
        headers: { 'Retry-After': '1' },
        cause: err.cause,
      });
  }
  const prismaCode = (err as { code?: unknown } | null)?.code;
  if (prismaCode === 'P2002') return new ProblemError('conflict', { detail: 'it already exists' });
  if (err instanceof AuditQueryError) {
    const detail = err.message;
    return new ProblemError('invalid-input', { detail, errors: [{ pointer: `/${err.field}`, detail }] });
  }
  if (err instanceof AuditUnavailableError)
    return new ProblemError('unavailable', {
      detail: 'the audit trail cannot be written, so the change was refused and did not happen',
      headers: { 'Retry-After': '1' },
    });
  if (isDependencyFailure(err))
    return new ProblemError('unavailable', {
      detail: 'PostgreSQL or Redis is unavailable',
      headers: { 'Retry-After': '1' },
      cause: err,
    });
  if (!(err instanceof OAuthError)) logger.error({ err }, 'management: unhandled error');
  return new ProblemError('internal', { detail: 'an unexpected failure; the change may not have happened' });
}
