// Signs client-auth JWTs (and other request-bound EdDSA assertions) the way an application backend would.
import { createHash, randomBytes } from 'node:crypto';
import { type CryptoKey, SignJWT } from 'jose';

export async function signClientAuth(opts: {
  key: CryptoKey;
  kid: string;
  iss: string;
  aud: string;
  body: string | Uint8Array;
  typ?: string;
  lifetimeSeconds?: number;
  iatOffsetSeconds?: number;
  jti?: string;
}): Promise<string> {
  const iat = Math.floor(Date.now() / 1000) + (opts.iatOffsetSeconds ?? 0);
  return new SignJWT({
    requestHash: createHash('sha256').update(opts.body).digest('base64url'),
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: opts.typ ?? 'vnd.service.client-auth+jwt', kid: opts.kid })
    .setIssuer(opts.iss)
    .setAudience(opts.aud)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (opts.lifetimeSeconds ?? 60))
    .setJti(opts.jti ?? randomBytes(16).toString('base64url'))
    .sign(opts.key);
}
