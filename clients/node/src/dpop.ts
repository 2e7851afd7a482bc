// DPoP (RFC 9449) for applications: the proof check a resource makes for a DPoP-bound access token (the same rules as
// the hosts' verifier in libs/token-core, held to the same malformed-proof vectors: typ dpop+jwt, ES256/EdDSA/RS256
// only, a public jwk, its signature, htm, htu without query or fragment, iat within 60 s, ath, the jti once), and the
// proofs a client sends (a key pair it keeps, one proof per request).
import {
  base64url,
  type CryptoKey,
  calculateJwkThumbprint,
  compactVerify,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
} from 'jose';

export const DPOP_ALGS = ['ES256', 'EdDSA', 'RS256'] as const;
export type DpopAlg = (typeof DPOP_ALGS)[number];
const MAX_AGE_SECONDS = 60;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Which check of RFC 9449 4.3 a proof failed (the hosts' names). */
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

export class DpopProofFailure extends Error {
  constructor(readonly failure: DpopFailure) {
    super(failure);
    this.name = 'DpopProofFailure';
  }
}

/**
 * Claims a proof's jti once for its key; false when it was claimed before. The default is this process's memory:
 * an application with several replicas passes one shared by them (a Redis SET NX with the given expiry).
 */
export type DpopReplayCheck = (jkt: string, jti: string, ttlSeconds: number) => Promise<boolean>;

/** A bounded in-process replay set, each entry kept for its ttl. */
export function memoryReplayCheck(now: () => number = Date.now, max = 100_000): DpopReplayCheck {
  const seen = new Map<string, number>();
  return async (jkt, jti, ttlSeconds) => {
    const t = now();
    const key = `${jkt} ${jti}`;
    const until = seen.get(key);
    if (until !== undefined && until > t) return false;
    seen.delete(key);
    seen.set(key, t + ttlSeconds * 1000);
    // Oldest first (Map keeps insertion order): drop what lapsed, and the oldest past the bound.
    for (const [k, u] of seen) {
      if (u > t && seen.size <= max) break;
      seen.delete(k);
    }
    return true;
  };
}

/** An htu as compared: origin and path, no query or fragment; undefined when it is no absolute http(s) URL. */
export function normalizeHtu(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

async function sha256b64(text: string): Promise<string> {
  return base64url.encode(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))),
  );
}

function decodeSegment(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(base64url.decode(segment)));
  } catch {
    throw new DpopProofFailure('malformed');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new DpopProofFailure('malformed');
  return value as Record<string, unknown>;
}

function publicMembers(alg: DpopAlg, jwk: Record<string, unknown>): JWK | undefined {
  if (PRIVATE_MEMBERS.some((m) => Object.hasOwn(jwk, m))) return undefined;
  const str = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9_-]+$/.test(v);
  if (alg === 'ES256' && jwk.kty === 'EC' && jwk.crv === 'P-256' && str(jwk.x) && str(jwk.y)) {
    return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
  }
  if (alg === 'EdDSA' && jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && str(jwk.x)) {
    return { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string };
  }
  if (alg === 'RS256' && jwk.kty === 'RSA' && str(jwk.n) && str(jwk.e) && (jwk.n as string).length >= 342) {
    return { kty: 'RSA', n: jwk.n as string, e: jwk.e as string };
  }
  return undefined;
}

export interface DpopRequest {
  /** The request's DPoP header as received (several headers joined by ", " are refused). */
  proof: string | undefined;
  /** The request's method. */
  method: string;
  /** The URL the request was sent to, as your service is reached from outside (origin and path). */
  url: string;
}

/**
 * Checks one proof for one request (RFC 9449 4.3) and returns its key's RFC 7638 thumbprint; throws
 * DpopProofFailure naming the failed check (or the replay check's own error, which is no acceptance).
 */
export async function checkDpopProof(
  req: DpopRequest,
  opts: { accessToken?: string; now: number; replay: DpopReplayCheck },
): Promise<string> {
  const proof = req.proof?.trim();
  if (!proof) throw new DpopProofFailure('missing');
  if (proof.length > 8192 || !COMPACT_JWS.test(proof)) throw new DpopProofFailure('malformed');
  const [h, p] = proof.split('.') as [string, string, string];
  const header = decodeSegment(h);
  if (header.typ !== 'dpop+jwt') throw new DpopProofFailure('typ');
  // Ed25519 is EdDSA's fully specified name (RFC 9864), what stock clients send for an Ed25519 key.
  const named = header.alg;
  const alg = named === 'Ed25519' ? 'EdDSA' : named;
  if (typeof alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(alg))
    throw new DpopProofFailure('alg');
  if (header.crit !== undefined || header.b64 !== undefined) throw new DpopProofFailure('malformed');
  const raw = header.jwk;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new DpopProofFailure('jwk');
  const jwk = publicMembers(alg as DpopAlg, raw as Record<string, unknown>);
  if (!jwk) throw new DpopProofFailure('jwk');
  let key: CryptoKey | Uint8Array;
  try {
    key = await importJWK(jwk, named as string);
  } catch {
    throw new DpopProofFailure('jwk');
  }
  try {
    await compactVerify(proof, key, { algorithms: [named as string] });
  } catch {
    throw new DpopProofFailure('signature');
  }
  const { jti, htm, htu, iat, ath } = decodeSegment(p);
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw new DpopProofFailure('claims');
  if (typeof htm !== 'string' || typeof htu !== 'string' || typeof iat !== 'number' || !Number.isFinite(iat))
    throw new DpopProofFailure('claims');
  if (htm !== req.method.toUpperCase()) throw new DpopProofFailure('htm');
  const expected = normalizeHtu(req.url);
  if (expected === undefined || normalizeHtu(htu) !== expected) throw new DpopProofFailure('htu');
  const now = opts.now / 1000;
  if (Math.abs(now - iat) > MAX_AGE_SECONDS) throw new DpopProofFailure('iat');
  if (opts.accessToken !== undefined && ath !== (await sha256b64(opts.accessToken)))
    throw new DpopProofFailure('ath');
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  const ttl = Math.ceil(iat + MAX_AGE_SECONDS - now) + MAX_AGE_SECONDS + 1;
  if (!(await opts.replay(jkt, jti, ttl))) throw new DpopProofFailure('replayed');
  return jkt;
}

/** A client's DPoP key and its proofs: one fresh proof per request, ath when an access token goes with it. */
export interface DpopSigner {
  /** RFC 7638 thumbprint of the public key: the tokens' cnf.jkt. */
  readonly jkt: string;
  proof(method: string, url: string, accessToken?: string): Promise<string>;
}

/** A signer over `keyPair` (default: a new non-extractable ES256 pair, kept for as long as its tokens). */
export async function createDpopSigner(
  keyPair?: { privateKey: CryptoKey; publicKey: CryptoKey },
  alg: DpopAlg = 'ES256',
): Promise<DpopSigner> {
  const pair = keyPair ?? (await generateKeyPair(alg, { extractable: false }));
  const { kty, crv, x, y, n, e } = await exportJWK(pair.publicKey);
  const jwk = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined));
  const jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  return {
    jkt,
    async proof(method, url, accessToken) {
      const u = new URL(url);
      return new SignJWT({
        htm: method.toUpperCase(),
        htu: `${u.origin}${u.pathname}`,
        jti: base64url.encode(crypto.getRandomValues(new Uint8Array(16))),
        ...(accessToken !== undefined ? { ath: await sha256b64(accessToken) } : {}),
      })
        .setProtectedHeader({ typ: 'dpop+jwt', alg, jwk: jwk as JWK })
        .setIssuedAt()
        .sign(pair.privateKey);
    },
  };
}
