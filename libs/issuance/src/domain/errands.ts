// Errands: short-lived, single-use browser hand-offs (ernd_ keys, stored hashed) opened on the connect host.
import { createHash, randomBytes } from 'node:crypto';
import type { IssuanceDeps } from './deps';

export interface ErrandRef {
  errandKey: string;
  url: string;
  expiresAt: string;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function errandUrl(connectUrl: string, errandKey: string): string {
  return `${connectUrl}/errands/${errandKey}`;
}

export async function createErrand(
  deps: Pick<IssuanceDeps, 'ports' | 'connectUrl' | 'errandTtlSeconds' | 'clock'>,
  input: { applicationId: string; accountId: string; purpose: 'CLAIMS'; claims: string[] },
): Promise<ErrandRef> {
  const errandKey = `ernd_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(deps.clock() + deps.errandTtlSeconds * 1000);
  await deps.ports.errands.insertErrand({
    errandKeyHash: hashKey(errandKey),
    applicationId: input.applicationId,
    accountId: input.accountId,
    purpose: input.purpose,
    claims: input.claims,
    expiresAt,
  });
  return { errandKey, url: errandUrl(deps.connectUrl, errandKey), expiresAt: expiresAt.toISOString() };
}
