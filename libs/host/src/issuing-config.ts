// The configuration every issuing host (connect, native, session, device, oidc) shares: hostVars plus the
// issuance core's lifetimes and cache sizes. A host's own schema spreads issuingVars and adds its variables.
import {
  type Env,
  type HostConfig,
  type HostName,
  type HostVars,
  hostConfigOf,
  hostVars,
  intVar,
  isProduction,
  readConfig,
  type VarValues,
} from '@svc/platform';

export function issuingVars(name: HostName, production: boolean) {
  return {
    ...hostVars(name, production),
    ERRAND_TTL_SECONDS: intVar(600, { min: 1 }),
    KEY_CACHE_TTL_MS: intVar(30_000),
    APP_CACHE_TTL_MS: intVar(2000),
    TERMS_CACHE_MS: intVar(1000),
    VERIFIED_TOKEN_CACHE_SIZE: intVar(10_000),
  };
}
export type IssuingVars = ReturnType<typeof issuingVars>;

export interface IssuingHostConfig extends HostConfig {
  /** Lifetime of an errand (ERRAND_TTL_SECONDS). */
  errandTtlSeconds: number;
  /** How long a host keeps signing keys without hearing of a change (KEY_CACHE_TTL_MS). */
  keyCacheTtlMs: number;
  /** How long an application's context is reused on hot paths (APP_CACHE_TTL_MS). */
  appCacheTtlMs: number;
  /** How long the current terms are reused: a new revision is enforced everywhere within it (TERMS_CACHE_MS). */
  termsCacheMs: number;
  /** Tokens whose signature already verified, remembered per process; 0 turns it off (VERIFIED_TOKEN_CACHE_SIZE). */
  verifiedTokenCacheSize: number;
}

export function issuingConfigOf(
  name: HostName,
  production: boolean,
  v: VarValues<IssuingVars & HostVars>,
): IssuingHostConfig {
  return {
    ...hostConfigOf(name, production, v),
    errandTtlSeconds: v.ERRAND_TTL_SECONDS,
    keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
    appCacheTtlMs: v.APP_CACHE_TTL_MS,
    termsCacheMs: v.TERMS_CACHE_MS,
    verifiedTokenCacheSize: v.VERIFIED_TOKEN_CACHE_SIZE,
  };
}

/** The shared part alone, for a process that needs no variable of its own (tests, tools acting as a host). */
export function issuingConfigFromEnv(name: HostName, env: Env): IssuingHostConfig {
  const production = isProduction(env);
  return readConfig(issuingVars(name, production), env, (v) => issuingConfigOf(name, production, v));
}
