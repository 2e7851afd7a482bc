// DPoP proof verification (RFC 9449 4.3), the one set of rules the OIDC host's /token and /par, and the OIDC and
// session hosts' /userinfo share: one compact JWS in the DPoP header, typ dpop+jwt, an asymmetric alg (ES256, EdDSA,
// RS256; never none or a MAC), a public jwk only, signed by that jwk, htm and htu of this request (htu without query
// or fragment), iat within 60 s of the host's clock, ath where an access token is presented, and the jti used once
// across every replica through the caller's replay port (claimOnce: a Redis failure throws, never accepts).
// The key's RFC 7638 thumbprint is what a token's cnf.jkt binds to.
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** The algorithms a proof may be signed with (discovery's dpop_signing_alg_values_supported). */
export const DPOP_ALGS = ['ES256', 'EdDSA', 'RS256'] as const;
export type DpopAlg = (typeof DPOP_ALGS)[number];

/**
 * The algorithm a header names, as the verifier knows it: `Ed25519` is the fully specified name of EdDSA over
 * Ed25519 (RFC 9864), which stock clients (oauth4webapi 3, openid-client 6) send for an Ed25519 key.
 */
function knownAlg(alg: unknown): DpopAlg | undefined {
  if (alg === 'Ed25519') return 'EdDSA';
  return typeof alg === 'string' && (DPOP_ALGS as readonly string[]).includes(alg)
    ? (alg as DpopAlg)
    : undefined;
}

/** The typ every proof carries (RFC 9449 4.2). */
export const DPOP_TYP = 'dpop+jwt';

/** How far a proof's iat may be from the verifier's clock, either way. */
export const DPOP_MAX_AGE_SECONDS = 60;

/** Which check of RFC 9449 4.3 a proof failed. */
export type DpopFailure =
  | 'missing'
  | 'malformed'
  | 'typ'
  | 'alg'
  | 'jwk'
  | 'signature'
  | 'claims'
  | 'htm'
  | 'htu'
  | 'iat'
  | 'ath'
  | 'replayed';

export class DpopProofError extends Error {
  constructor(
    readonly failure: DpopFailure,
    message: string = failure,
  ) {
    super(message);
    this.name = 'DpopProofError';
  }
}

/** Where a proof's jti is claimed once across replicas; false when it was claimed before. Throws when it cannot tell. */
export type DpopReplay = (jkt: string, jti: string, ttlSeconds: number) => Promise<boolean>;

export interface DpopCheck {
  /** The DPoP header as received (several headers arrive joined by ", ", which is no compact JWS). */
  proof: string | undefined;
  /** The request's method. */
  method: string;
  /** The URL the request was sent to as the host publishes it (its configured origin and the path). */
  url: string;
  /** The access token presented with the proof (resource requests): its hash must be the proof's ath. */
  accessToken?: string;
  /** Milliseconds since the epoch, from the host's clock. */
  now: number;
  replay: DpopReplay;
}

export interface VerifiedDpop {
  /** RFC 7638 SHA-256 thumbprint of the proof's key (base64url): a token's cnf.jkt. */
  jkt: string;
  jti: string;
  iat: number;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_PROOF_CHARS = 8192;
const MAX_JTI_CHARS = 256;
/** Members of a private key (RFC 7518 6.2.2, 6.3.2; RFC 8037 2) and of a symmetric one (6.4). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** How many imported keys are kept (a client proves with the same key for the life of its tokens). */
const KEY_CACHE_SIZE = 5000;

/** The public members of a jwk for `alg`, or undefined when the jwk is no public key of that algorithm's type. */
function publicMembers(alg: DpopAlg, jwk: Record<string, unknown>): JWK | undefined {
  if (PRIVATE_MEMBERS.some((m) => Object.hasOwn(jwk, m))) return undefined;
  const str = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9_-]+$/.test(v);
  switch (alg) {
    case 'ES256':
      return jwk.kty === 'EC' && jwk.crv === 'P-256' && str(jwk.x) && str(jwk.y)
        ? { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string }
        : undefined;
    case 'EdDSA':
      return jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && str(jwk.x)
        ? { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string }
        : undefined;
    case 'RS256':
      // 2048 bits at least (RFC 7518 3.3).
      return jwk.kty === 'RSA' && str(jwk.n) && str(jwk.e) && (jwk.n as string).length >= 342
        ? { kty: 'RSA', n: jwk.n as string, e: jwk.e as string }
        : undefined;
  }
}

/** A client's key as imported once: its thumbprint and the KeyObject, by its public members. */
const keyCache = new Map<string, { jkt: string; key: KeyObject }>();

async function importPublic(jwk: JWK): Promise<{ jkt: string; key: KeyObject }> {
  const id = JSON.stringify(jwk);
  let entry = keyCache.get(id);
  if (!entry) {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
    } catch {
      throw new DpopProofError('jwk', 'jwk is not a usable key');
    }
    entry = { jkt: await calculateJwkThumbprint(jwk, 'sha256'), key };
    keyCache.set(id, entry);
    if (keyCache.size > KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value as string);
  }
  return entry;
}

/**
 * The JWS signature over `header.payload` by `key` for `alg`, on node:crypto directly (ES256 as the raw r||s pair
 * JWS uses, RFC 7518 3.4): a proof is verified on every DPoP request, and jose's path through WebCrypto costs
 * several times as much.
 */
function signatureValid(alg: DpopAlg, key: KeyObject, signingInput: string, signature: string): boolean {
  const data = Buffer.from(signingInput);
  const sig = Buffer.from(signature, 'base64url');
  try {
    if (alg === 'EdDSA') return verify(null, data, key, sig);
    if (alg === 'ES256') {
      return sig.length === 64 && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
    }
    return verify('sha256', data, key, sig);
  } catch {
    return false;
  }
}

/**
 * An htu as compared: scheme, host and port as the URL parser normalises them (lower case, default port dropped),
 * and the path; no query, no fragment (RFC 9449 4.3 step 9). Undefined when it is no absolute http(s) URL.
 */
export function normalizeHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return `${url.origin}${url.pathname}`;
}

/** The ath of an access token: base64url(SHA-256(ASCII(token))) (RFC 9449 4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

function decodeSegment(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw new DpopProofError('malformed', 'a DPoP proof segment is not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new DpopProofError('malformed', 'a DPoP proof segment is not a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * Verifies one DPoP proof for one request; throws DpopProofError naming the failed check, or the replay port's own
 * error when it cannot tell whether the jti was used (a Redis failure: the caller answers 503).
 */
export async function verifyDpopProof(c: DpopCheck): Promise<VerifiedDpop> {
  const proof = c.proof?.trim();
  if (!proof) throw new DpopProofError('missing', 'no DPoP proof');
  // One compact JWS, base64url exactly: two DPoP headers arrive joined by ", " and fail here.
  if (proof.length > MAX_PROOF_CHARS || !COMPACT_JWS.test(proof)) {
    throw new DpopProofError('malformed', 'the DPoP header is not one compact JWS');
  }
  const [h, p, s] = proof.split('.') as [string, string, string];
  const header = decodeSegment(h);
  if (header.typ !== DPOP_TYP) throw new DpopProofError('typ', 'typ must be dpop+jwt');
  const alg = knownAlg(header.alg);
  if (!alg) throw new DpopProofError('alg', `alg must be one of ${DPOP_ALGS.join(', ')}`);
  // No critical extensions are understood (RFC 7515 4.1.11); b64 false among them.
  if (header.crit !== undefined || header.b64 !== undefined) {
    throw new DpopProofError('malformed', 'crit and b64 are not accepted');
  }
  const rawJwk = header.jwk;
  if (!rawJwk || typeof rawJwk !== 'object' || Array.isArray(rawJwk)) {
    throw new DpopProofError('jwk', 'the header must carry the public jwk');
  }
  const jwk = publicMembers(alg, rawJwk as Record<string, unknown>);
  if (!jwk) throw new DpopProofError('jwk', `jwk must be a public ${alg} key and nothing private`);
  const { jkt, key } = await importPublic(jwk);
  if (!signatureValid(alg, key, `${h}.${p}`, s)) {
    throw new DpopProofError('signature', 'the proof is not signed by its jwk');
  }
  const claims = decodeSegment(p);
  const { jti, htm, htu, iat, ath } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_CHARS) {
    throw new DpopProofError('claims', 'jti must be a string of 1 to 256 characters');
  }
  if (
    typeof htm !== 'string' ||
    typeof htu !== 'string' ||
    typeof iat !== 'number' ||
    !Number.isFinite(iat)
  ) {
    throw new DpopProofError('claims', 'htm, htu and iat are required');
  }
  if (htm !== c.method) throw new DpopProofError('htm', 'htm is not the method of this request');
  const expected = normalizeHtu(c.url);
  if (expected === undefined || normalizeHtu(htu) !== expected) {
    throw new DpopProofError('htu', 'htu is not the URL of this request');
  }
  const now = c.now / 1000;
  if (Math.abs(now - iat) > DPOP_MAX_AGE_SECONDS) {
    throw new DpopProofError('iat', `iat must be within ${DPOP_MAX_AGE_SECONDS} s of now`);
  }
  if (c.accessToken !== undefined) {
    if (typeof ath !== 'string' || ath !== accessTokenHash(c.accessToken)) {
      throw new DpopProofError('ath', 'ath is not the hash of the presented access token');
    }
  }
  // Kept past the last instant any replica would take the proof: its iat window, and a margin for replicas'
  // clocks apart (their Redis expiry is one clock, their iat checks are each their own).
  const ttl = Math.ceil(iat + DPOP_MAX_AGE_SECONDS - now) + DPOP_MAX_AGE_SECONDS + 1;
  if (!(await c.replay(jkt, jti, ttl))) throw new DpopProofError('replayed', 'the proof was used before');
  return { jkt, jti, iat };
}
