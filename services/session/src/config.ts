// The session host's configuration: every issuing host's variables plus its own, read once at start-up.
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { jwksMaxAge } from '@svc/keyring';
import { type Env, intVar, isProduction, readConfig } from '@svc/platform';

function sessionVars(production: boolean) {
  return {
    ...issuingVars('session', production),
    REFRESH_RETRY_WINDOW_MS: intVar(2000),
    INTROSPECT_RECHECK_SECONDS: intVar(60, { min: 1 }),
    SESSION_CACHE_MS: intVar(1000),
    JWKS_MAX_AGE_SECONDS: intVar(300, { min: 1 }),
    KEY_PREPUBLISH_SECONDS: intVar(86_400, { min: 1 }),
  };
}

export interface SessionConfig extends IssuingHostConfig {
  /** Window in which a retry of the same rotation gets the pair already issued (REFRESH_RETRY_WINDOW_MS). */
  retryAllowanceMs: number;
  /** recommendedRecheckSeconds for an active session (INTROSPECT_RECHECK_SECONDS). */
  recheckSeconds: number;
  /** How long a session row is reused by introspection; changes evict it at once (SESSION_CACHE_MS). */
  sessionCacheMs: number;
  /** JWK Set Cache-Control max-age: never longer than 300 s nor the key prepublication window. */
  jwksMaxAgeSeconds: number;
}

export function sessionConfigFromEnv(env: Env): SessionConfig {
  const production = isProduction(env);
  return readConfig(sessionVars(production), env, (v) => ({
    ...issuingConfigOf('session', production, v),
    retryAllowanceMs: v.REFRESH_RETRY_WINDOW_MS,
    recheckSeconds: v.INTROSPECT_RECHECK_SECONDS,
    sessionCacheMs: v.SESSION_CACHE_MS,
    jwksMaxAgeSeconds: jwksMaxAge(v.JWKS_MAX_AGE_SECONDS, v.KEY_PREPUBLISH_SECONDS),
  }));
}
