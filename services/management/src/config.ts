// The management host's configuration: every host's variables, the key-rotation windows the key commands read
// (as the admin tool reads them), and its own limits, read once at start-up.
import { jwksMaxAge, type RotationWindows, rotationPrepublishSeconds } from '@svc/keyring';
import {
  boolVar,
  type Env,
  type HostConfig,
  hostConfigOf,
  hostVars,
  intVar,
  isProduction,
  keyPrefixVar,
  readConfig,
} from '@svc/platform';

function managementVars(production: boolean) {
  return {
    ...hostVars('management', production),
    JWKS_MAX_AGE_SECONDS: intVar(300, { min: 1 }),
    KEY_PREPUBLISH_SECONDS: intVar(86_400, { min: 1 }),
    KEY_CACHE_TTL_MS: intVar(30_000),
    MANAGEMENT_BODY_LIMIT_BYTES: intVar(256 * 1024, { min: 1024, max: 2 * 1024 * 1024 }),
    MANAGEMENT_RATE_LIMIT_PER_MINUTE: intVar(600, { min: 1, max: 1_000_000 }),
    OPERATOR_KEY_CACHE_MS: intVar(1000, { min: 0, max: 5000 }),
    RATE_LIMIT_NAMESPACE: keyPrefixVar(''),
    EVENTS_ALLOW_PRIVATE_TARGETS: boolVar(false),
  };
}

export interface ManagementConfig extends HostConfig {
  /** What `keys rotate` and `keys revoke` wait for, as the admin tool computes it. */
  keyRotation: RotationWindows;
  /** The largest request body read (MANAGEMENT_BODY_LIMIT_BYTES); larger is 413. */
  bodyLimitBytes: number;
  /** Requests per operator key per minute across every replica (MANAGEMENT_RATE_LIMIT_PER_MINUTE); then 429. */
  rateLimitPerMinute: number;
  /** How long a looked-up operator key is reused (OPERATOR_KEY_CACHE_MS): a revoked key stops within it. */
  operatorKeyCacheMs: number;
  /** Prefix of the rate-limit counters in Redis (RATE_LIMIT_NAMESPACE). */
  rateLimitNamespace: string;
  /** EVENTS_ALLOW_PRIVATE_TARGETS: event subscriptions may point at private addresses (as the admin tool reads it). */
  allowPrivateTargets: boolean;
}

export function managementConfigFromEnv(env: Env): ManagementConfig {
  const production = isProduction(env);
  return readConfig(managementVars(production), env, (v) => ({
    ...hostConfigOf('management', production, v),
    keyRotation: {
      publishedSeconds: rotationPrepublishSeconds(
        jwksMaxAge(v.JWKS_MAX_AGE_SECONDS, v.KEY_PREPUBLISH_SECONDS),
        v.KEY_CACHE_TTL_MS,
      ),
      keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
    },
    bodyLimitBytes: v.MANAGEMENT_BODY_LIMIT_BYTES,
    rateLimitPerMinute: v.MANAGEMENT_RATE_LIMIT_PER_MINUTE,
    operatorKeyCacheMs: v.OPERATOR_KEY_CACHE_MS,
    rateLimitNamespace: v.RATE_LIMIT_NAMESPACE,
    allowPrivateTargets: v.EVENTS_ALLOW_PRIVATE_TARGETS,
  }));
}
