// The one RS256 signing path of the service: compact JWS over node:crypto KeyObjects, for application tokens and
// OIDC ID tokens alike. The signature runs on libuv's thread pool (node:crypto's async sign), as WebCrypto's did,
// without WebCrypto's per-call key and promise plumbing.
import { type KeyObject, sign } from 'node:crypto';

export interface Signer {
  kid: string;
  /** The RSA private key (node:crypto KeyObject; its JSON and inspection show no key material). */
  key: KeyObject;
}

function signAsync(data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // RSA keys sign RSASSA-PKCS1-v1_5 by default: deterministic, so the same input gives the same token.
    sign('sha256', data, key, (err, signature) => (err ? reject(err) : resolve(signature)));
  });
}

/**
 * Signs `claimsJson` (the payload's exact bytes, already serialised) as a compact JWS with the protected header
 * `{"alg":"RS256","kid":...,"typ":...}`, in that member order: the bytes jose's CompactSign produced before.
 */
export async function signJws(signer: Signer, typ: string, claimsJson: string): Promise<string> {
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: signer.kid, typ })).toString('base64url');
  const signingInput = `${header}.${Buffer.from(claimsJson).toString('base64url')}`;
  const signature = await signAsync(Buffer.from(signingInput), signer.key);
  return `${signingInput}.${signature.toString('base64url')}`;
}
