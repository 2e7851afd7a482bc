// Verification of application tokens: header checks before signature, then claims, with failures classified
// so each host can map them to its own reasons.
import { type CryptoKey, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { TYP } from './typ';

export type VerifyFailure =
  | 'malformed'
  | 'wrong_type'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'invalid_claims';

export class TokenVerificationError extends Error {
  constructor(
    readonly failure: VerifyFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TokenVerificationError';
  }
}

export interface UnverifiedToken {
  kid: string;
  typ: string;
  aud: string;
}

/** Reads the header and `aud` without trusting them, to find which application's key set to use. */
export function peekToken(token: string): UnverifiedToken {
  try {
    const header = decodeProtectedHeader(token);
    const payload = decodeJwt(token);
    if (
      header.alg !== 'RS256' ||
      typeof header.kid !== 'string' ||
      !header.kid ||
      typeof header.typ !== 'string'
    ) {
      throw new TokenVerificationError('malformed', 'header');
    }
    if (typeof payload.aud !== 'string') throw new TokenVerificationError('malformed', 'aud');
    return { kid: header.kid, typ: header.typ, aud: payload.aud };
  } catch (err) {
    if (err instanceof TokenVerificationError) throw err;
    throw new TokenVerificationError('malformed', 'not a JWT');
  }
}

export interface VerifyOptions {
  typ: readonly string[];
  issuer: string;
  audience: string;
  key: CryptoKey;
  /** Introspection describes the session, so it ignores the token's own expiry. */
  ignoreExpiry?: boolean;
}

export interface ApplicationTokenClaims {
  iss: string;
  aud: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
  sub?: string;
  act?: { sub: string };
  rotationVersion?: number;
}

export async function verifyApplicationToken(
  token: string,
  opts: VerifyOptions,
): Promise<{ typ: string; claims: ApplicationTokenClaims }> {
  const peek = peekToken(token);
  if (!opts.typ.includes(peek.typ)) throw new TokenVerificationError('wrong_type', 'typ');
  let payload: Record<string, unknown>;
  try {
    const res = await jwtVerify(token, opts.key, {
      algorithms: ['RS256'],
      issuer: opts.issuer,
      audience: opts.audience,
      typ: peek.typ,
      requiredClaims: ['iss', 'aud', 'sid', 'jti', 'iat', 'exp'],
      currentDate: opts.ignoreExpiry ? new Date(0) : undefined,
      clockTolerance: opts.ignoreExpiry ? 0 : 5,
    });
    payload = res.payload as Record<string, unknown>;
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw new TokenVerificationError('expired', 'expired');
    if (err instanceof errors.JWSSignatureVerificationFailed)
      throw new TokenVerificationError('bad_signature', 'sig');
    if (err instanceof errors.JWTClaimValidationFailed) {
      // With the epoch as "now", a token is only "not yet valid"; that is not an error for introspection.
      if (opts.ignoreExpiry && err.claim === 'iat') payload = decodeJwt(token) as Record<string, unknown>;
      else throw new TokenVerificationError('invalid_claims', err.claim);
    } else throw new TokenVerificationError('malformed', 'jws');
  }
  const claims = payload as unknown as ApplicationTokenClaims;
  if (typeof claims.sid !== 'string' || typeof claims.jti !== 'string') {
    throw new TokenVerificationError('invalid_claims', 'sid/jti');
  }
  if (peek.typ === TYP.refresh) {
    if (!Number.isInteger(claims.rotationVersion) || (claims.rotationVersion ?? 0) < 1 || 'sub' in claims) {
      throw new TokenVerificationError('invalid_claims', 'rotationVersion');
    }
  } else if (typeof claims.sub !== 'string' || !claims.sub) {
    throw new TokenVerificationError('invalid_claims', 'sub');
  }
  if (peek.typ === TYP.workloadAccess && (typeof claims.act?.sub !== 'string' || !claims.act.sub)) {
    throw new TokenVerificationError('invalid_claims', 'act');
  }
  if (peek.typ === TYP.accountAccess && 'act' in claims)
    throw new TokenVerificationError('invalid_claims', 'act');
  return { typ: peek.typ, claims };
}
