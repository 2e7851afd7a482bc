// The request-bound EdDSA assertions an application signs: the client-auth JWT of /establish and /revoke-all
// (CONTRACTS) and the public-key assertion of /direct-issue/public-key (spec). Both bind the exact body bytes
// (`requestHash`), live at most 60 s and are single use, so each request, and each retry, signs a fresh one.
import { base64url, type CryptoKey, importJWK, type JWK, SignJWT } from 'jose';

export const CLIENT_AUTH_TYP = 'vnd.service.client-auth+jwt';
export const PUBLIC_KEY_ASSERTION_TYP = 'vnd.service.public-key-assertion+jwt';
export const AUDIENCE = {
  connect: 'service-connect',
  session: 'service-session',
  nativePublicKey: 'service-native-public-key',
} as const;

/** An Ed25519 private key: a JWK with `d` (and, for a client key, its registered `kid`), or a CryptoKey. */
export type SigningKeyInput = JWK | CryptoKey;

export interface BoundSigner {
  kid: string;
  key: CryptoKey;
}

/** Imports the key once; `kid` comes from the JWK unless given. */
const isJwk = (key: SigningKeyInput): key is JWK => typeof (key as JWK).kty === 'string';

export async function boundSigner(key: SigningKeyInput, kid?: string): Promise<BoundSigner> {
  const jwkKid = isJwk(key) && typeof key.kid === 'string' ? key.kid : undefined;
  const chosen = kid ?? jwkKid;
  if (!chosen) throw new TypeError('the signing key needs its registered kid (a `kid` member or option)');
  if (isJwk(key)) {
    if (key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.d !== 'string') {
      throw new TypeError('the signing key must be an Ed25519 private JWK (kty OKP, crv Ed25519, with d)');
    }
    const { kid: _kid, use: _use, key_ops: _ops, alg: _alg, ...rest } = key;
    return { kid: chosen, key: (await importJWK({ ...rest, alg: 'EdDSA' }, 'EdDSA')) as CryptoKey };
  }
  return { kid: chosen, key };
}

export async function requestHash(body: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  return base64url.encode(new Uint8Array(digest));
}

function freshJti(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(16)));
}

/** Signs one request-bound assertion: header `{alg: EdDSA, typ, kid}`, claims exactly iss, aud, iat, exp, jti, requestHash. */
export async function signBound(
  signer: BoundSigner,
  opts: { typ: string; iss: string; aud: string; body: string; nowMs: number; lifetimeSeconds?: number },
): Promise<string> {
  const iat = Math.floor(opts.nowMs / 1000);
  return new SignJWT({ requestHash: await requestHash(opts.body) })
    .setProtectedHeader({ alg: 'EdDSA', typ: opts.typ, kid: signer.kid })
    .setIssuer(opts.iss)
    .setAudience(opts.aud)
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.min(opts.lifetimeSeconds ?? 60, 60))
    .setJti(freshJti())
    .sign(signer.key);
}
