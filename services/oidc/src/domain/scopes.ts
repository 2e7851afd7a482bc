// Scopes and the authentication references of the OIDC host (CONTRACTS "OIDC host").
import { passkeySignInReferences } from '@svc/signin';

export const SCOPES_SUPPORTED = ['openid', 'profile', 'email', 'offline_access'] as const;
export type Scope = (typeof SCOPES_SUPPORTED)[number];

/**
 * `amr` and `acr` of a sign-in with a device-bound passkey (libs/signin auth-references.ts decides the values of
 * each sign-in; these name the common case for seeded codes in the benchmark).
 */
export const PASSKEY_AMR: readonly string[] = passkeySignInReferences(true).amr;
export const PASSKEY_ACR = passkeySignInReferences(true).acr as string;

/** The space-separated scope parameter as a set of known scopes (unknown scopes are dropped, RFC 6749 3.3). */
export function parseScope(scope: string): Scope[] {
  const words = new Set(scope.split(' ').filter(Boolean));
  return SCOPES_SUPPORTED.filter((s) => words.has(s));
}
