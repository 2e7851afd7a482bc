// Refresh-token jtis that prove which session and version they were minted for, so that every version of a
// session, not only the current one (whose jti the session row holds), binds to it through its exact jti without
// storing one row per version: a jti is a random nonce and a keyed MAC (under the KEK) of the nonce, the sid and
// the rotation version. Logout and reuse detection check it for versions older than the current one.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Kek, keysThatOpen } from '@svc/token-core';

const NONCE_BYTES = 16;
const MAC_BYTES = 12;
/** base64url of 28 bytes. */
const JTI_LENGTH = Math.ceil(((NONCE_BYTES + MAC_BYTES) * 4) / 3);

function macOf(kek: Kek, sid: string, version: number, nonce: Buffer): Buffer {
  return createHmac('sha256', kek.key)
    .update(`refresh-jti\u0000${sid}\u0000${version}\u0000`)
    .update(nonce)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** A fresh jti for refresh version `version` of session `sid`. */
export function newRefreshJti(kek: Kek, sid: string, version: number): string {
  const nonce = randomBytes(NONCE_BYTES);
  return Buffer.concat([nonce, macOf(kek, sid, version, nonce)]).toString('base64url');
}

/**
 * Whether `jti` was minted by `newRefreshJti` for exactly this session and version (constant-time compare), under
 * the KEK or a previous one (a jti minted before a KEK rotation still binds to its session).
 */
export function isRefreshJtiOf(kek: Kek, jti: string | undefined, sid: string, version: number): boolean {
  if (typeof jti !== 'string' || jti.length !== JTI_LENGTH || !/^[A-Za-z0-9_-]+$/.test(jti)) return false;
  const raw = Buffer.from(jti, 'base64url');
  // Canonical only: a variant spelling of the same bytes (other trailing bits) is another jti.
  if (raw.length !== NONCE_BYTES + MAC_BYTES || raw.toString('base64url') !== jti) return false;
  const nonce = raw.subarray(0, NONCE_BYTES);
  const mac = raw.subarray(NONCE_BYTES);
  return keysThatOpen(kek).some((k) => timingSafeEqual(mac, macOf(k, sid, version, nonce)));
}

/**
 * Whether a genuine (signature-verified) refresh token names a version its session really reached, under that
 * version's exact jti: the current one is on the row, an older one carries a MAC of the sid and its version. What
 * session /logout and OIDC revocation take as the authority to end the session.
 */
export function namesReachedVersion(
  kek: Kek,
  session: { id: string; currentVersion: number; currentJti: string | null },
  claims: { jti?: string; rotationVersion?: number },
): boolean {
  const version = claims.rotationVersion ?? 0;
  if (version > session.currentVersion) return false;
  return version === session.currentVersion
    ? session.currentJti === claims.jti
    : isRefreshJtiOf(kek, claims.jti, session.id, version);
}
