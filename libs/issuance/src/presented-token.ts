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

export async function verifyPresentedToken(
  deps: Pick<IssuanceDeps, 'keyRing' | 'issuer'>,
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
  const { typ, claims } = await verifyApplicationToken(token, {
    typ: opts.typ,
    issuer: deps.issuer,
    audience: app.anchor,
    key,
    ignoreExpiry: opts.ignoreExpiry,
  });
  return { app, typ, claims };
}
