// Forged JWS of every known trick, built by hand so nothing refuses to make them: alg none, HS256 keyed with the
// public key, an attacker's key under a real kid, embedded jwk, jku/x5u, crit, kid traversal and injection, and
// broken base64url. Used by the hostile-input suite against every token-bearing endpoint.
import { createHmac, createPublicKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import type { Db } from '@svc/db';
import type { KeyRing } from '@svc/keyring';
import { type CryptoKey, decodeJwt, type JWK } from 'jose';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

export type JwsAlg = 'RS256' | 'EdDSA';

export interface ForgeTarget {
  alg: JwsAlg;
  /** A kid the server knows. */
  kid: string;
  typ: string;
  /** The claims of a genuine token (or assertion) for this endpoint. */
  claims: Record<string, unknown>;
  /** The public JWK the server holds for `kid`. */
  publicJwk: JWK;
  /** The real private key, when the test has it: genuine signatures over forbidden headers. */
  realKey?: CryptoKey | KeyObject;
  /** A genuine token, for base64url and segment mutations. */
  genuine?: string;
}

/** The target of a token the platform signed for an application (RS256): its current signer and published JWK. */
export async function appTokenTarget(
  keyRing: KeyRing,
  applicationId: string,
  token: string,
  typ: string,
): Promise<ForgeTarget> {
  const signer = await keyRing.signer(applicationId);
  if (!signer) throw new Error(`no signing key for application ${applicationId}`);
  const { keys } = await keyRing.jwks(applicationId);
  return {
    alg: 'RS256',
    kid: signer.kid,
    typ,
    claims: decodeJwt(token) as Record<string, unknown>,
    publicJwk: keys.find((k) => k.kid === signer.kid) as unknown as JWK,
    realKey: signer.key,
    genuine: token,
  };
}

/** The target of a genuine ClientAuth JWT (EdDSA): the client key the application registered, and its private half. */
export async function clientAuthTarget(
  db: Db,
  client: { kid: string; key: CryptoKey },
  genuine: string,
): Promise<ForgeTarget> {
  const { jwk } = await db.clientKey.findUniqueOrThrow({ where: { kid: client.kid } });
  return {
    alg: 'EdDSA',
    kid: client.kid,
    typ: 'vnd.service.client-auth+jwt',
    claims: decodeJwt(genuine) as Record<string, unknown>,
    publicJwk: jwk as unknown as JWK,
    realKey: client.key,
    genuine,
  };
}

export interface ForgedJws {
  trick: string;
  jws: string;
}

function signWith(alg: JwsAlg, key: KeyObject, input: string): string {
  const sig = alg === 'RS256' ? sign('sha256', Buffer.from(input), key) : sign(null, Buffer.from(input), key);
  return sig.toString('base64url');
}

function compact(header: unknown, claims: unknown, signer?: (input: string) => string): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${signer ? signer(input) : ''}`;
}

function attackerKey(alg: JwsAlg): { privateKey: KeyObject; publicJwk: JWK } {
  const pair =
    alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  return { privateKey: pair.privateKey, publicJwk: pair.publicKey.export({ format: 'jwk' }) as JWK };
}

/** Every forgery for one target; none of them may be accepted. */
export function forgeAll(t: ForgeTarget): ForgedJws[] {
  const attacker = attackerKey(t.alg);
  const bySelf = (input: string) => signWith(t.alg, attacker.privateKey, input);
  const real =
    t.realKey === undefined || t.realKey instanceof KeyObject
      ? t.realKey
      : KeyObject.from(t.realKey as Parameters<typeof KeyObject.from>[0]);
  const byReal = real ? (input: string) => signWith(t.alg, real, input) : undefined;
  const base = { alg: t.alg, kid: t.kid, typ: t.typ };
  const publicPem = createPublicKey({
    key: t.publicJwk as Record<string, unknown>,
    format: 'jwk',
  } as Parameters<typeof createPublicKey>[0])
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const hs = (secret: string | Buffer) => (input: string) =>
    createHmac('sha256', secret).update(input).digest('base64url');
  const out: ForgedJws[] = [
    { trick: 'alg none', jws: compact({ ...base, alg: 'none' }, t.claims) },
    { trick: 'alg NONE', jws: compact({ ...base, alg: 'NONE' }, t.claims) },
    { trick: 'alg none with a signature', jws: compact({ ...base, alg: 'none' }, t.claims, bySelf) },
    {
      trick: 'HS256 keyed with the public JWK',
      jws: compact({ ...base, alg: 'HS256' }, t.claims, hs(JSON.stringify(t.publicJwk))),
    },
    {
      trick: 'HS256 keyed with the public PEM',
      jws: compact({ ...base, alg: 'HS256' }, t.claims, hs(publicPem)),
    },
    {
      trick: 'HS256 keyed with the modulus or x',
      jws: compact(
        { ...base, alg: 'HS256' },
        t.claims,
        hs(Buffer.from(String(t.publicJwk.n ?? t.publicJwk.x), 'base64url')),
      ),
    },
    { trick: 'attacker key under the real kid', jws: compact(base, t.claims, bySelf) },
    { trick: 'embedded jwk', jws: compact({ ...base, jwk: attacker.publicJwk }, t.claims, bySelf) },
    {
      trick: 'embedded jwk without kid',
      jws: compact({ alg: t.alg, typ: t.typ, jwk: attacker.publicJwk }, t.claims, bySelf),
    },
    { trick: 'jku', jws: compact({ ...base, jku: 'http://127.0.0.1:9/jwks.json' }, t.claims, bySelf) },
    { trick: 'x5u', jws: compact({ ...base, x5u: 'http://127.0.0.1:9/cert.pem' }, t.claims, bySelf) },
    {
      trick: 'crit with an unknown member',
      jws: compact({ ...base, crit: ['x-exp'], 'x-exp': 1 }, t.claims, bySelf),
    },
    { trick: 'b64 false', jws: compact({ ...base, b64: false, crit: ['b64'] }, t.claims, bySelf) },
    {
      trick: 'other alg (PS256/ES256) header',
      jws: compact({ ...base, alg: t.alg === 'RS256' ? 'PS256' : 'ES256' }, t.claims, bySelf),
    },
    ...[
      '../../../../../../etc/passwd',
      '..\\..\\..\\windows\\win.ini',
      "' OR '1'='1",
      '{"$ne":null}',
      'kid\u0000null',
      '\ud800',
      'k'.repeat(5000),
      '',
    ].map((kid) => ({
      trick: `kid ${JSON.stringify(kid.slice(0, 24))}`,
      jws: compact({ ...base, kid }, t.claims, bySelf),
    })),
    { trick: 'kid as a number', jws: compact({ ...base, kid: 1 }, t.claims, bySelf) },
    {
      trick: 'header is an array',
      jws: `${b64([base])}.${b64(t.claims)}.${bySelf(`${b64([base])}.${b64(t.claims)}`)}`,
    },
    { trick: 'header not JSON', jws: `${b64('not json')}.${b64(t.claims)}.AAAA` },
    {
      trick: 'duplicate alg members',
      jws: `${b64(`{"alg":"none","alg":"${t.alg}","kid":${JSON.stringify(t.kid)},"typ":"${t.typ}"}`)}.${b64(t.claims)}.`,
    },
    { trick: 'payload not JSON', jws: compact(base, 'not json', bySelf) },
    {
      trick: 'payload with NUL claims',
      jws: compact(base, { ...t.claims, sub: 'a\u0000b', jti: 'j\u0000' }, bySelf),
    },
  ];
  if (byReal) {
    out.push(
      {
        trick: 'real key, jku added',
        jws: compact({ ...base, jku: 'http://127.0.0.1:9/jwks.json' }, t.claims, byReal),
      },
      {
        trick: 'real key, embedded jwk',
        jws: compact({ ...base, jwk: attacker.publicJwk }, t.claims, byReal),
      },
      { trick: 'real key, crit', jws: compact({ ...base, crit: ['exp'] }, t.claims, byReal) },
      {
        trick: 'real key, b64 false',
        jws: compact({ ...base, b64: false, crit: ['b64'] }, t.claims, byReal),
      },
      { trick: 'real key, typ changed', jws: compact({ ...base, typ: `${t.typ}x` }, t.claims, byReal) },
      { trick: 'real key, no kid', jws: compact({ alg: t.alg, typ: t.typ }, t.claims, byReal) },
      { trick: 'real key, exp a string', jws: compact(base, { ...t.claims, exp: '9999999999' }, byReal) },
      { trick: 'real key, nbf in the future', jws: compact(base, { ...t.claims, nbf: 4e9 }, byReal) },
      { trick: 'real key, aud array', jws: compact(base, { ...t.claims, aud: [t.claims.aud, 'x'] }, byReal) },
    );
  }
  if (t.genuine) {
    const [h, p, s] = t.genuine.split('.') as [string, string, string];
    // Re-spelt in the standard alphabet. A token with no '-' or '_' anywhere would be left unchanged (genuine, and
    // rightly accepted), so the trick is only sent when it changes something; that skips about 1 token in 10^4.
    const standard = t.genuine.replace(/-/g, '+').replace(/_/g, '/');
    if (standard !== t.genuine) out.push({ trick: 'standard base64 characters', jws: standard });
    out.push(
      { trick: 'padding', jws: `${h}=.${p}==.${s}=` },
      { trick: 'whitespace inside', jws: `${h}.${p.slice(0, 5)} ${p.slice(5)}.${s}` },
      { trick: 'four segments', jws: `${t.genuine}.${s}` },
      { trick: 'two segments', jws: `${h}.${p}` },
      { trick: 'empty signature', jws: `${h}.${p}.` },
      { trick: 'signature of another length', jws: `${h}.${p}.${s.slice(0, -4)}` },
      { trick: 'non-base64url bytes', jws: `${h}.${p}.${s.slice(0, -2)}!*` },
      { trick: 'JSON serialization', jws: JSON.stringify({ protected: h, payload: p, signature: s }) },
    );
  }
  return out;
}
