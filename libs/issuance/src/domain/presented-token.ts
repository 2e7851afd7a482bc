// Verifies a token presented to the service: find the application by the untrusted `aud`, then verify the
// signature with that application's published key, then the claims. Failures are classified, not thrown raw.
import {
  type ApplicationTokenClaims,
  peekToken,
  TokenVerificationError,
  TYP,
  verifyApplicationToken,
} from '@svc/token-core';
import type { ApplicationCache, ApplicationContext } from './application-context';
import type { IssuanceDeps } from './deps';

export const ACCESS_TYPS = [TYP.accountAccess, TYP.workloadAccess] as const;
export const REFRESH_TYPS = [TYP.refresh] as const;

export interface PresentedToken {
  app: ApplicationContext;
  typ: string;
  claims: ApplicationTokenClaims;
}

interface VerifiedEntry {
  kid: string;
  typ: string;
  claims: ApplicationTokenClaims;
}

/**
 * Tokens whose signature already verified, so a token presented again (introspection, userinfo) skips the RSA
 * work. A hit is trusted only while its key is still published for the application, and expiry is re-checked on
 * every use, so revoking a key or the passing of `exp` takes effect exactly as without the cache.
 */
const verified = new Map<string, VerifiedEntry>();

function remember(token: string, entry: VerifiedEntry, max: number): void {
  if (max <= 0) return;
  if (verified.size >= max) verified.delete(verified.keys().next().value as string);
  verified.set(token, entry);
}

export async function verifyPresentedToken(
  deps: Pick<IssuanceDeps, 'keyRing' | 'issuer' | 'verifiedTokenCacheSize' | 'clock'>,
  apps: ApplicationCache,
  token: string,
  opts: { typ: readonly string[]; ignoreExpiry?: boolean },
): Promise<PresentedToken> {
  const peek = peekToken(token);
  if (!opts.typ.includes(peek.typ)) throw new TokenVerificationError('wrong_type', 'typ');
  const app = await apps.get(peek.aud);
  if (!app) throw new TokenVerificationError('unknown_key', 'aud');
  const key = await deps.keyRing.verificationKey(app.id, peek.kid);
  if (!key) throw new TokenVerificationError('unknown_key', 'kid');
  const now = deps.clock();
  const hit = verified.get(token);
  if (hit && hit.claims.aud === app.anchor && hit.claims.iss === deps.issuer) {
    if (!opts.ignoreExpiry && hit.claims.exp <= Math.floor(now / 1000) - 5) {
      throw new TokenVerificationError('expired', 'expired');
    }
    return { app, typ: hit.typ, claims: hit.claims };
  }
  const { typ, claims } = await verifyApplicationToken(
    token,
    { typ: opts.typ, issuer: deps.issuer, audience: app.anchor, key, ignoreExpiry: opts.ignoreExpiry, now },
    peek,
  );
  // A refresh token is presented once (rotation consumes it), so caching it would only hold memory.
  if (typ !== TYP.refresh) remember(token, { kid: peek.kid, typ, claims }, deps.verifiedTokenCacheSize);
  return { app, typ, claims };
}
