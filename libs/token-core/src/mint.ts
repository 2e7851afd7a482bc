// Minting of application access (account and workload) and refresh tokens with the spec's exact headers and claims.
import { randomFillSync } from 'node:crypto';
import { type Signer, signJws } from './jws';
import { TYP } from './typ';

// Identifiers are cut from a pool of CSPRNG bytes refilled 4 KiB at a time: one call into OpenSSL per ~200
// identifiers instead of one each (each byte is handed out once).
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;

function randomId(bytes: number): string {
  if (randomOffset + bytes > randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  const id = randomPool.toString('base64url', randomOffset, randomOffset + bytes);
  randomOffset += bytes;
  return id;
}

export function newJti(): string {
  return randomId(16);
}

export function newSid(): string {
  return `sid_${randomId(18)}`;
}

interface CommonClaims {
  issuer: string;
  audience: string;
  sid: string;
  /** Seconds since the epoch, from the caller's clock (token rules never read the time themselves). */
  iat: number;
  ttlSeconds: number;
  jti?: string;
}

export interface AccessTokenInput extends CommonClaims {
  subject: string;
  /** Present for workload tokens only: the agent's or automation's pairwise subject. */
  actorSubject?: string;
  /** A DPoP-bound token's key: RFC 7638 thumbprint, stated as `cnf: {jkt}` (RFC 9449 6.1). */
  dpopJkt?: string;
}

export interface MintedToken {
  token: string;
  jti: string;
  iat: number;
  exp: number;
}

async function sign(
  signer: Signer,
  typ: string,
  payload: Record<string, unknown>,
  c: CommonClaims,
): Promise<MintedToken> {
  const { iat } = c;
  const exp = iat + c.ttlSeconds;
  const jti = c.jti ?? newJti();
  // The claims are built here, whole and typed, and signed as this JSON byte for byte.
  const claims = JSON.stringify({ ...payload, iss: c.issuer, aud: c.audience, sid: c.sid, jti, iat, exp });
  const token = await signJws(signer, typ, claims);
  return { token, jti, iat, exp };
}

/** Account access token (no `act`) or workload access token (with `act: {sub}`), chosen by `actorSubject`. */
export function mintAccessToken(signer: Signer, input: AccessTokenInput): Promise<MintedToken> {
  const cnf = input.dpopJkt ? { cnf: { jkt: input.dpopJkt } } : {};
  if (input.actorSubject) {
    return sign(
      signer,
      TYP.workloadAccess,
      { sub: input.subject, act: { sub: input.actorSubject }, ...cnf },
      input,
    );
  }
  return sign(signer, TYP.accountAccess, { sub: input.subject, ...cnf }, input);
}

export interface RefreshTokenInput extends CommonClaims {
  rotationVersion: number;
}

/** Refresh token: iss, aud, sid, jti, iat, exp, rotationVersion; no sub, no act, no profile. */
export function mintRefreshToken(signer: Signer, input: RefreshTokenInput): Promise<MintedToken> {
  return sign(signer, TYP.refresh, { rotationVersion: input.rotationVersion }, input);
}
