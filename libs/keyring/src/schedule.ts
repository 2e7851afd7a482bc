// The signing-key schedule (how often keys rotate, how long a next key is prepublished) and the JWK Set max-age
// rule that follows from it: a verifier's cached JWK Set can never be older than the prepublication window, so
// every verifier has fetched a key before it signs.

/** Defaults: rotate every 30 days, prepublish 24 h ahead, JWK Set cached for at most 300 s (also the ceiling). */
export const DEFAULT_KEY_ROTATE_EVERY_SECONDS = 2_592_000;
export const DEFAULT_KEY_PREPUBLISH_SECONDS = 86_400;
export const DEFAULT_JWKS_MAX_AGE_SECONDS = 300;

export interface KeySchedule {
  /** Age of the active key at which the next key takes over. */
  rotateEverySeconds: number;
  /** How long a NEXT key is published before it signs. */
  prepublishSeconds: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer number of seconds`);
  return n;
}

/** Reads KEY_ROTATE_EVERY_SECONDS and KEY_PREPUBLISH_SECONDS; the prepublication must be shorter than a period. */
export function keyScheduleFromEnv(env: NodeJS.ProcessEnv = process.env): KeySchedule {
  const rotateEverySeconds = positiveInt(env, 'KEY_ROTATE_EVERY_SECONDS', DEFAULT_KEY_ROTATE_EVERY_SECONDS);
  const prepublishSeconds = positiveInt(env, 'KEY_PREPUBLISH_SECONDS', DEFAULT_KEY_PREPUBLISH_SECONDS);
  if (prepublishSeconds >= rotateEverySeconds) {
    throw new Error('KEY_PREPUBLISH_SECONDS must be shorter than KEY_ROTATE_EVERY_SECONDS');
  }
  return { rotateEverySeconds, prepublishSeconds };
}

/**
 * The `max-age` of a JWK Set response: min(JWKS_MAX_AGE_SECONDS, 300, prepublication window). Never above 300 s:
 * verifiers may keep an emergency-revoked key for up to 300 s after their last fetch (spec). Serve it as
 * `Cache-Control: public, max-age=<this>`.
 */
export function jwksMaxAgeSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const configured = positiveInt(env, 'JWKS_MAX_AGE_SECONDS', DEFAULT_JWKS_MAX_AGE_SECONDS);
  return jwksMaxAge(configured, keyScheduleFromEnv(env).prepublishSeconds);
}

/** The JWK Set max-age rule over parsed values: min(configured, 300, prepublication window). */
export function jwksMaxAge(configuredSeconds: number, prepublishSeconds: number): number {
  return Math.min(configuredSeconds, DEFAULT_JWKS_MAX_AGE_SECONDS, prepublishSeconds);
}

/**
 * How long an operator's rotation (`keys rotate` without `--now`) publishes the new key before it signs: the JWK
 * Set cache lifetime, plus the hosts' key cache lifetime (KEY_CACHE_TTL_MS) in case one missed the change message.
 */
export function rotationPrepublishSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const keyCacheMs = Math.max(Number(env.KEY_CACHE_TTL_MS ?? 30_000) || 0, 0);
  return jwksMaxAgeSeconds(env) + Math.ceil(keyCacheMs / 1000);
}
