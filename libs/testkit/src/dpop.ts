// DPoP proofs for tests (RFC 9449), built by hand so nothing refuses to make a bad one: a key pair of each allowed
// alg, a genuine proof for a request, and the malformed proofs of every check RFC 9449 4.3 lists, each naming the
// failure a verifier must report. The server's verifier (libs/token-core dpop.ts) and the SDK's (clients/node) are
// both held to this one list.
import { createHash, createHmac, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

export type DpopTestAlg = 'ES256' | 'EdDSA' | 'RS256';

export interface DpopTestKey {
  alg: DpopTestAlg;
  privateKey: KeyObject;
  publicJwk: JWK;
  /** RFC 7638 thumbprint of publicJwk. */
  jkt: string;
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A fresh key pair for proofs. */
export async function dpopKey(alg: DpopTestAlg = 'ES256'): Promise<DpopTestKey> {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicJwk = pair.publicKey.export({ format: 'jwk' }) as JWK;
  return {
    alg,
    privateKey: pair.privateKey,
    publicJwk,
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
  };
}

function signature(alg: DpopTestAlg, key: KeyObject, input: string): string {
  const data = Buffer.from(input);
  const sig =
    alg === 'ES256'
      ? sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' })
      : alg === 'EdDSA'
        ? sign(null, data, key)
        : sign('sha256', data, key);
  return sig.toString('base64url');
}

export interface ProofRequest {
  htm: string;
  htu: string;
  /** The access token presented with the proof: ath is its hash. */
  accessToken?: string;
  /** Seconds since the epoch (default now). */
  iat?: number;
  jti?: string;
  nonce?: string;
}

const sha256b64 = (value: string) => createHash('sha256').update(value, 'ascii').digest('base64url');

/** The header and claims of a genuine proof for `req`. */
export function proofParts(key: DpopTestKey, req: ProofRequest) {
  const header: Record<string, unknown> = { typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk };
  const claims: Record<string, unknown> = {
    jti: req.jti ?? randomBytes(16).toString('base64url'),
    htm: req.htm,
    htu: req.htu,
    iat: req.iat ?? Math.floor(Date.now() / 1000),
    ...(req.accessToken !== undefined ? { ath: sha256b64(req.accessToken) } : {}),
    ...(req.nonce !== undefined ? { nonce: req.nonce } : {}),
  };
  return { header, claims };
}

/** A compact JWS of exactly this header and these claims, signed by `key` (as `alg`, default the key's). */
export function signProof(
  key: DpopTestKey,
  header: Record<string, unknown>,
  claims: unknown,
  signer: DpopTestKey = key,
): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${signature(signer.alg, signer.privateKey, input)}`;
}

/** A genuine proof for one request. */
export function dpopProof(key: DpopTestKey, req: ProofRequest): string {
  const { header, claims } = proofParts(key, req);
  return signProof(key, header, claims);
}

/** Which check a malformed proof fails (the names of libs/token-core's DpopFailure). */
export type ProofFailure =
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
  | 'ath';

export interface MalformedProof {
  trick: string;
  failure: ProofFailure;
  proof: string;
}

const without = (o: Record<string, unknown>, member: string) => {
  const { [member]: _, ...rest } = o;
  return rest;
};

/**
 * Every malformed proof for one request (RFC 9449 4.3, one or more per check); none may be accepted, and each
 * names the check it fails. `req.accessToken` adds the ath cases; `req.iat` is "now" for the iat cases.
 */
export async function malformedProofs(key: DpopTestKey, req: ProofRequest): Promise<MalformedProof[]> {
  const now = req.iat ?? Math.floor(Date.now() / 1000);
  const { header, claims } = proofParts(key, { ...req, iat: now });
  const other = await dpopKey(key.alg);
  const genuine = signProof(key, header, claims);
  const fresh = () => ({ ...claims, jti: randomBytes(16).toString('base64url') });
  const sig = (h: Record<string, unknown>, c: unknown = fresh()) => signProof(key, h, c);
  const [h, p, s] = genuine.split('.') as [string, string, string];
  const hmac = (h2: Record<string, unknown>) => {
    const input = `${b64(h2)}.${b64(fresh())}`;
    return `${input}.${createHmac('sha256', JSON.stringify(key.publicJwk)).update(input).digest('base64url')}`;
  };
  const rsaSmall = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const out: MalformedProof[] = [
    // 1. Exactly one DPoP header.
    { trick: 'no proof', failure: 'missing', proof: '' },
    {
      trick: 'two proofs (two DPoP headers joined)',
      failure: 'malformed',
      proof: `${genuine}, ${sig(header)}`,
    },
    // 2. A well-formed JWT.
    { trick: 'not a JWS', failure: 'malformed', proof: 'not-a-jwt' },
    { trick: 'two segments', failure: 'malformed', proof: `${h}.${p}` },
    {
      trick: 'JSON serialization',
      failure: 'malformed',
      proof: JSON.stringify({ protected: h, payload: p, signature: s }),
    },
    { trick: 'padding', failure: 'malformed', proof: `${h}=.${p}.${s}` },
    { trick: 'header not JSON', failure: 'malformed', proof: `${b64('nope')}.${p}.${s}` },
    { trick: 'payload not JSON', failure: 'malformed', proof: sig(header, 'nope') },
    { trick: 'crit member', failure: 'malformed', proof: sig({ ...header, crit: ['x'], x: 1 }) },
    // 3. and 4. typ dpop+jwt.
    { trick: 'typ missing', failure: 'typ', proof: sig(without(header, 'typ')) },
    { trick: 'typ JWT', failure: 'typ', proof: sig({ ...header, typ: 'JWT' }) },
    { trick: 'typ at+jwt', failure: 'typ', proof: sig({ ...header, typ: 'at+jwt' }) },
    // 5. An asymmetric algorithm the server supports; never none or a MAC.
    { trick: 'alg missing', failure: 'alg', proof: sig(without(header, 'alg')) },
    {
      trick: 'alg none, unsigned',
      failure: 'malformed',
      proof: `${b64({ ...header, alg: 'none' })}.${b64(fresh())}.`,
    },
    { trick: 'alg none, signed', failure: 'alg', proof: sig({ ...header, alg: 'none' }) },
    { trick: 'alg HS256 keyed with the jwk', failure: 'alg', proof: hmac({ ...header, alg: 'HS256' }) },
    { trick: 'alg PS256 (not supported)', failure: 'alg', proof: sig({ ...header, alg: 'PS256' }) },
    // 6. and 7. A public jwk, nothing private, of the alg's key type.
    { trick: 'jwk missing', failure: 'jwk', proof: sig(without(header, 'jwk')) },
    {
      trick: 'jwk with its private member',
      failure: 'jwk',
      proof: sig({ ...header, jwk: key.privateKey.export({ format: 'jwk' }) }),
    },
    { trick: 'jwk symmetric', failure: 'jwk', proof: sig({ ...header, jwk: { kty: 'oct', k: 'c2VjcmV0' } }) },
    {
      trick: 'jwk of another key type',
      failure: 'jwk',
      proof: sig({ ...header, jwk: (await dpopKey(key.alg === 'EdDSA' ? 'ES256' : 'EdDSA')).publicJwk }),
    },
    { trick: 'jwk a string', failure: 'jwk', proof: sig({ ...header, jwk: 'key' }) },
    // 8. Signed by that jwk.
    { trick: 'signed by another key', failure: 'signature', proof: signProof(key, header, fresh(), other) },
    {
      trick: 'jwk swapped for another key',
      failure: 'signature',
      proof: sig({ ...header, jwk: other.publicJwk }),
    },
    { trick: 'signature of other bytes', failure: 'signature', proof: `${h}.${b64(fresh())}.${s}` },
    // 9. and 10. htm and htu of this request.
    {
      trick: 'htm other method',
      failure: 'htm',
      proof: sig(header, { ...fresh(), htm: req.htm === 'GET' ? 'POST' : 'GET' }),
    },
    {
      trick: 'htm lower case',
      failure: 'htm',
      proof: sig(header, { ...fresh(), htm: req.htm.toLowerCase() }),
    },
    { trick: 'htu other path', failure: 'htu', proof: sig(header, { ...fresh(), htu: `${req.htu}x` }) },
    {
      trick: 'htu other host',
      failure: 'htu',
      proof: sig(header, { ...fresh(), htu: req.htu.replace(/\/\/[^/]+/, '//evil.example') }),
    },
    {
      trick: 'htu relative',
      failure: 'htu',
      proof: sig(header, { ...fresh(), htu: new URL(req.htu).pathname }),
    },
    // Required claims.
    { trick: 'jti missing', failure: 'claims', proof: sig(header, without(fresh(), 'jti')) },
    { trick: 'jti empty', failure: 'claims', proof: sig(header, { ...fresh(), jti: '' }) },
    { trick: 'jti a number', failure: 'claims', proof: sig(header, { ...fresh(), jti: 7 }) },
    { trick: 'htm missing', failure: 'claims', proof: sig(header, without(fresh(), 'htm')) },
    { trick: 'htu missing', failure: 'claims', proof: sig(header, without(fresh(), 'htu')) },
    { trick: 'iat missing', failure: 'claims', proof: sig(header, without(fresh(), 'iat')) },
    { trick: 'iat a string', failure: 'claims', proof: sig(header, { ...fresh(), iat: String(now) }) },
    // 11. iat within the window.
    { trick: 'iat 2 min old', failure: 'iat', proof: sig(header, { ...fresh(), iat: now - 120 }) },
    { trick: 'iat 2 min ahead', failure: 'iat', proof: sig(header, { ...fresh(), iat: now + 120 }) },
  ];
  if (key.alg === 'RS256') {
    out.push({
      trick: 'RSA key under 2048 bits',
      failure: 'jwk',
      proof: signProof(
        { ...key, privateKey: rsaSmall.privateKey },
        { ...header, jwk: rsaSmall.publicKey.export({ format: 'jwk' }) },
        fresh(),
      ),
    });
  }
  if (req.accessToken !== undefined) {
    // 12. ath: the hash of the access token presented with it.
    out.push(
      { trick: 'ath missing', failure: 'ath', proof: sig(header, without(fresh(), 'ath')) },
      {
        trick: 'ath of another token',
        failure: 'ath',
        proof: sig(header, { ...fresh(), ath: sha256b64(`${req.accessToken}x`) }),
      },
      {
        trick: 'ath the token itself',
        failure: 'ath',
        proof: sig(header, { ...fresh(), ath: req.accessToken }),
      },
    );
  }
  return out;
}
