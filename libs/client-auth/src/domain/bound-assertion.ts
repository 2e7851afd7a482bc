// Verification of request-bound EdDSA assertions (client-auth JWTs and public-key assertions): exact header and
// claim sets, short lifetime, requestHash over the exact body bytes, then single use across replicas through the
// replay set port (store/replay-set.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Clock, isStorableText } from '@svc/platform';
import { type CryptoKey, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { ReplaySet } from './ports';

export type AssertionFailure =
  | 'missing'
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'invalid'
  | 'replayed';

export class AssertionError extends Error {
  constructor(readonly failure: AssertionFailure) {
    super(failure);
    this.name = 'AssertionError';
  }
}

export interface AssertionClaims {
  iss: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  requestHash: string;
}

export interface BoundAssertionOptions<K> {
  /** The Authorization header value, e.g. `ClientAuth <jws>`. */
  authorization: string | undefined;
  scheme: string;
  typ: string;
  kidPrefix: string;
  audience: string;
  rawBody: Buffer;
  /** Finds the registered key; undefined when unknown or inactive. */
  resolveKey(kid: string): Promise<(K & { jwk: JWK }) | undefined>;
  /** Extra check of `iss` against the resolved key (client-auth: the key's application anchor). */
  issuerMatches(iss: string, kid: string, key: K): boolean;
  /** Where the `jti` is claimed once, under `<replayNamespace>:<kid>`. */
  replay: ReplaySet;
  replayNamespace: string;
  maxLifetimeSeconds?: number;
  /** The host's clock: the assertion's iat and exp are judged by it. */
  clock: Clock;
}

const SKEW_SECONDS = 5;
/**
 * How far apart replicas' clocks may be. Each replica judges exp on its own clock, but the jti it records lapses
 * on Redis's: without this margin a replica whose clock lags by more than a second accepts an assertion again
 * once the replica that saw it would have refused it and let its jti lapse.
 */
const REPLICA_DRIFT_SECONDS = 60;
const HEADER_MEMBERS = ['alg', 'kid', 'typ'];
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const CLAIM_MEMBERS = ['aud', 'exp', 'iat', 'iss', 'jti', 'requestHash'];
const B64URL = /^[A-Za-z0-9_-]+$/;
/**
 * A `jti` is a fresh random 128-bit value (spec: public-key assertion; CONTRACTS: client-auth JWT), base64url: 22
 * characters carry at least 128 bits, so a shorter one (16 characters are 96 bits) is refused; 64 bounds the
 * replay key.
 */
const JTI_MIN_CHARS = 22;
const JTI_MAX_CHARS = 64;

const sameMembers = (o: object, expected: string[]) => {
  const keys = Object.keys(o).sort();
  return keys.length === expected.length && keys.every((k, i) => k === expected[i]);
};

export function bodyHash(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('base64url');
}

function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

const keyCache = new Map<string, Promise<CryptoKey>>();
function importEd25519(kid: string, jwk: JWK): Promise<CryptoKey> {
  const cacheKey = `${kid}:${jwk.x}`;
  let k = keyCache.get(cacheKey);
  if (!k) {
    k = importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, 'EdDSA') as Promise<CryptoKey>;
    keyCache.set(cacheKey, k);
    if (keyCache.size > 5000) keyCache.delete(keyCache.keys().next().value as string);
  }
  return k;
}

export async function verifyBoundAssertion<K>(
  opts: BoundAssertionOptions<K>,
): Promise<{ claims: AssertionClaims; kid: string; key: K }> {
  const auth = opts.authorization?.trim();
  if (!auth) throw new AssertionError('missing');
  const space = auth.indexOf(' ');
  if (space < 0 || auth.slice(0, space).toLowerCase() !== opts.scheme.toLowerCase()) {
    throw new AssertionError('missing');
  }
  const jws = auth.slice(space + 1).trim();
  // Compact JWS in base64url exactly (RFC 7515): jose would also decode standard base64 and padding, which makes
  // a second spelling of one signed assertion.
  if (jws.length > 4096 || !COMPACT_JWS.test(jws)) throw new AssertionError('malformed');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(jws) as Record<string, unknown>;
  } catch {
    throw new AssertionError('malformed');
  }
  if (
    !sameMembers(header, HEADER_MEMBERS) ||
    header.alg !== 'EdDSA' ||
    header.typ !== opts.typ ||
    typeof header.kid !== 'string' ||
    !header.kid.startsWith(opts.kidPrefix) ||
    !isStorableText(header.kid)
  ) {
    throw new AssertionError('malformed');
  }
  const kid = header.kid;
  const registered = await opts.resolveKey(kid);
  if (!registered) throw new AssertionError('unknown_key');
  let payloadBytes: Uint8Array;
  try {
    const res = await compactVerify(jws, await importEd25519(kid, registered.jwk), { algorithms: ['EdDSA'] });
    payloadBytes = res.payload;
  } catch {
    throw new AssertionError('bad_signature');
  }
  let claims: AssertionClaims;
  try {
    claims = JSON.parse(Buffer.from(payloadBytes).toString('utf8')) as AssertionClaims;
  } catch {
    throw new AssertionError('malformed');
  }
  if (
    !claims ||
    typeof claims !== 'object' ||
    !sameMembers(claims, CLAIM_MEMBERS) ||
    typeof claims.iss !== 'string' ||
    claims.aud !== opts.audience ||
    !Number.isInteger(claims.iat) ||
    !Number.isInteger(claims.exp) ||
    typeof claims.jti !== 'string' ||
    claims.jti.length < JTI_MIN_CHARS ||
    claims.jti.length > JTI_MAX_CHARS ||
    !B64URL.test(claims.jti) ||
    typeof claims.requestHash !== 'string' ||
    !opts.issuerMatches(claims.iss, kid, registered)
  ) {
    throw new AssertionError('invalid');
  }
  const now = Math.floor(opts.clock() / 1000);
  const maxLifetime = opts.maxLifetimeSeconds ?? 60;
  if (claims.exp <= claims.iat || claims.exp - claims.iat > maxLifetime) throw new AssertionError('invalid');
  if (claims.iat > now + SKEW_SECONDS) throw new AssertionError('invalid');
  if (claims.exp + SKEW_SECONDS <= now) throw new AssertionError('expired');
  if (!constantTimeEqual(claims.requestHash, bodyHash(opts.rawBody))) throw new AssertionError('invalid');
  const ttl = claims.exp + SKEW_SECONDS - now + 1 + REPLICA_DRIFT_SECONDS;
  if (!(await opts.replay.claimOnce(`${opts.replayNamespace}:${kid}`, claims.jti, ttl))) {
    throw new AssertionError('replayed');
  }
  return { claims, kid, key: registered };
}
