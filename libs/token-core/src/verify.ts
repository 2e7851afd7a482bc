// Verification of application tokens: header checks before signature, then claims, with failures classified
// so each host can map them to its own reasons. The token is decoded once; the RS256 signature is checked with
// node:crypto on the calling thread.
import { type KeyObject, verify as verifySignature } from 'node:crypto';
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
  /** The header's `typ` in canonical form (lower case, without `application/`): compare it with `TYP`. */
  typ: string;
  aud: string;
  /** The token taken apart once, so verification does not decode it again. */
  parts: CompactParts;
}

interface CompactParts {
  /** `header.payload`, the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

const PLAIN_BASE64URL = /^[A-Za-z0-9_-]*$/;
const ASCII_WHITESPACE = /[\t\n\f\r ]/g;
/** Header and claims are UTF-8 JSON: invalid UTF-8 is refused and a leading BOM dropped, as jose does. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** Our tokens' protected header has exactly these members; anything else (crit, b64, jku, x5u, ...) is refused. */
const HEADER_MEMBERS = new Set(['alg', 'kid', 'typ']);

/**
 * base64url exactly as jose decodes it on Node 24 (which has no Uint8Array.fromBase64, so jose uses atob's forgiving
 * base64 over the URL alphabet; a runtime with fromBase64 would change this, and verify-differential.test.ts with it): ASCII
 * whitespace is skipped, `=` padding is allowed where it completes a quantum, spare bits are ignored, a length of
 * 4n+1 is refused. Our own tokens take the first test only.
 */
function decodeSegment(segment: string): Buffer {
  let s = segment;
  if (!PLAIN_BASE64URL.test(s)) {
    s = s.replace(ASCII_WHITESPACE, '');
    if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
    if (!PLAIN_BASE64URL.test(s)) throw new TokenVerificationError('malformed', 'encoding');
  }
  if (s.length % 4 === 1) throw new TokenVerificationError('malformed', 'encoding');
  return Buffer.from(s, 'base64url');
}

function decodeJsonObject(segment: string): Record<string, unknown> {
  const value: unknown = JSON.parse(UTF8.decode(decodeSegment(segment)));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TokenVerificationError('malformed', 'not an object');
  }
  return value as Record<string, unknown>;
}

/** Splits a compact JWS and decodes its header and payload; the signature is not checked here. */
function parseCompact(token: string): CompactParts {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first < 0 || second < 0 || token.indexOf('.', second + 1) !== -1) {
    throw new TokenVerificationError('malformed', 'not a compact JWS');
  }
  return {
    signingInput: token.slice(0, second),
    signature: decodeSegment(token.slice(second + 1)),
    header: decodeJsonObject(token.slice(0, first)),
    payload: decodeJsonObject(token.slice(first + 1, second)),
  };
}

/**
 * The `typ` compared as jose compares it: media types are case-insensitive and `application/` may be omitted
 * (RFC 7515, 4.1.9), so `APPLICATION/VND.SERVICE...` names our `vnd.service...`.
 */
function canonicalTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** Reads the header and `aud` without trusting them, to find which application's key set to use. */
export function peekToken(token: string): UnverifiedToken {
  let parts: CompactParts;
  try {
    parts = parseCompact(token);
  } catch (err) {
    if (err instanceof TokenVerificationError) throw err;
    throw new TokenVerificationError('malformed', 'not a JWT');
  }
  const { header, payload } = parts;
  if (
    header.alg !== 'RS256' ||
    typeof header.kid !== 'string' ||
    !header.kid ||
    typeof header.typ !== 'string' ||
    Object.keys(header).some((member) => !HEADER_MEMBERS.has(member))
  ) {
    throw new TokenVerificationError('malformed', 'header');
  }
  if (typeof payload.aud !== 'string') throw new TokenVerificationError('malformed', 'aud');
  return { kid: header.kid, typ: canonicalTyp(header.typ), aud: payload.aud, parts };
}

export interface VerifyOptions {
  typ: readonly string[];
  issuer: string;
  audience: string;
  /** The RSA public key (importVerificationKey). */
  key: KeyObject;
  /** Introspection describes the session, so it ignores the token's own expiry. */
  ignoreExpiry?: boolean;
  /** The time to verify at, ms since the epoch: a reading of the caller's Clock (jose's `currentDate`). */
  now: number;
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
  /** A DPoP-bound access token's key thumbprint (RFC 9449 6.1). */
  cnf?: { jkt: string };
  rotationVersion?: number;
}

const REQUIRED_CLAIMS = ['iss', 'aud', 'sid', 'jti', 'iat', 'exp'] as const;
/** Seconds of clock skew tolerated on `exp` and `nbf`. */
const CLOCK_TOLERANCE = 5;

/**
 * Verifies an application token: RS256 only, the header checks of `peekToken`, the signature with node:crypto on
 * the calling thread (an RSA-2048 verify takes ~20 µs, less than a hand-off to the thread pool and back), then the
 * claims. `peeked` is the token's own `peekToken` result when the caller has it.
 */
export async function verifyApplicationToken(
  token: string,
  opts: VerifyOptions,
  peeked?: UnverifiedToken,
): Promise<{ typ: string; claims: ApplicationTokenClaims }> {
  const peek = peeked ?? peekToken(token);
  if (!opts.typ.includes(peek.typ)) throw new TokenVerificationError('wrong_type', 'typ');
  const { signingInput, signature, payload } = peek.parts;
  let valid = false;
  try {
    valid = verifySignature('sha256', Buffer.from(signingInput), opts.key, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new TokenVerificationError('bad_signature', 'sig');
  for (const claim of REQUIRED_CLAIMS) {
    if (!Object.hasOwn(payload, claim)) throw new TokenVerificationError('invalid_claims', claim);
  }
  if (payload.iss !== opts.issuer) throw new TokenVerificationError('invalid_claims', 'iss');
  if (payload.aud !== opts.audience) throw new TokenVerificationError('invalid_claims', 'aud');
  if (typeof payload.iat !== 'number') throw new TokenVerificationError('invalid_claims', 'iat');
  if (typeof payload.exp !== 'number') throw new TokenVerificationError('invalid_claims', 'exp');
  if (payload.nbf !== undefined && typeof payload.nbf !== 'number') {
    throw new TokenVerificationError('invalid_claims', 'nbf');
  }
  const now = Math.floor(opts.now / 1000);
  // Introspection ignores the token's expiry, never its not-before.
  if (typeof payload.nbf === 'number' && payload.nbf > now + CLOCK_TOLERANCE) {
    throw new TokenVerificationError('invalid_claims', 'nbf');
  }
  if (!opts.ignoreExpiry && payload.exp <= now - CLOCK_TOLERANCE) {
    throw new TokenVerificationError('expired', 'expired');
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
