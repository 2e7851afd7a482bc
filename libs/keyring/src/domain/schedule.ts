// The signing-key schedule (how often keys rotate, how long a next key is prepublished) and the JWK Set max-age
// rule that follows from it: a verifier's cached JWK Set can never be older than the prepublication window, so
// every verifier has fetched a key before it signs.

/** Defaults: rotate every 30 days, prepublish 24 h ahead, JWK Set cached for at most 300 s (also the ceiling). */
export const DEFAULT_KEY_ROTATE_EVERY_SECONDS = 2_592_000;
export const DEFAULT_KEY_PREPUBLISH_SECONDS = 86_400;
export const DEFAULT_JWKS_MAX_AGE_SECONDS = 300;
/**
 * The longest ID token lifetime (OIDC_ID_TOKEN_TTL_SECONDS): a day, far under the rotation period, so the one retired
 * key the OIDC set publishes covers every ID token still valid under the normal schedule (lifecycle keepOneRetired).
 */
export const ID_TOKEN_TTL_MAX_SECONDS = 86_400;

export interface KeySchedule {
  /** Age of the active key at which the next key takes over. */
  rotateEverySeconds: number;
  /** How long a NEXT key is published before it signs. */
  prepublishSeconds: number;
  /**
   * The hosts' key cache lifetime (their KEY_CACHE_TTL_MS): a host that missed a key change may sign with a retired
   * key this long, so a retiring key stays published for the tokens it could still sign then.
   */
  keyCacheTtlMs: number;
}

/** The JWK Set max-age rule over parsed values: min(configured, 300, prepublication window). */
export function jwksMaxAge(configuredSeconds: number, prepublishSeconds: number): number {
  return Math.min(configuredSeconds, DEFAULT_JWKS_MAX_AGE_SECONDS, prepublishSeconds);
}

/**
 * How long an operator's rotation (`keys rotate` without `--now`) publishes the new key before it signs: the JWK
 * Set cache lifetime, plus the hosts' key cache lifetime (KEY_CACHE_TTL_MS) in case one missed the change message.
 */
export function rotationPrepublishSeconds(jwksMaxAgeSeconds: number, keyCacheTtlMs: number): number {
  return jwksMaxAgeSeconds + Math.ceil(Math.max(keyCacheTtlMs, 0) / 1000);
}
