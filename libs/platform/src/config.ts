// Configuration: each process reads its environment once, at start-up, through one zod schema made of the
// variables below, and passes the typed result down. A bad value fails start-up with a message naming the
// variable (never echoing its value: some are secrets). Libraries take settings as options, never read process.env.
import { isIP } from 'node:net';
import { z } from 'zod';
import type { RedisNode, RedisTarget } from './redis';
import type { ClaimDurability } from './single-use-claim';

export const DEFAULT_PORTS = {
  connect: 4101,
  native: 4102,
  session: 4103,
  device: 4104,
  oidc: 4105,
  management: 4106,
} as const;

export type HostName = keyof typeof DEFAULT_PORTS;
export const HOST_NAMES = Object.keys(DEFAULT_PORTS) as HostName[];

/** The environment as a process sees it (`process.env`, or a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's parser: the raw string (or undefined when unset) to its typed value. */
export type Var<T> = z.ZodType<T, string | undefined>;
export type Vars = Record<string, Var<unknown>>;
/** The parsed values of a set of variables, keyed by variable name. */
export type VarValues<S extends Vars> = { [K in keyof S]: z.output<S[K]> };

/** Start-up refused: every bad variable with what it must be, one per line; values are never included. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; problem: string }[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable} ${p.problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const unset = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';

type Parsed<T> = T | { problem: string };

/**
 * A variable whose raw text `parse` turns into a value, or into a problem message (kept value-free); `whenUnset`
 * answers for an unset (or blank) one the same way.
 */
function checkedVar<T>(whenUnset: () => Parsed<T>, parse: (raw: string) => Parsed<T>): Var<T> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const out = unset(raw) ? whenUnset() : parse(raw.trim());
      if (out && typeof out === 'object' && 'problem' in out) {
        ctx.addIssue({ code: 'custom', message: out.problem });
        return z.NEVER;
      }
      return out as T;
    }) as unknown as Var<T>;
}

/** A variable with a default (`fallback`, or what it returns) when unset. */
function variable<T>(fallback: T | (() => T), parse: (raw: string) => Parsed<T>): Var<T> {
  return checkedVar(() => (typeof fallback === 'function' ? (fallback as () => T)() : fallback), parse);
}

/** A whole number in [min, max] (defaults: 0 to 2^31-1), `fallback` when unset. */
export function intVar(fallback: number, opts: { min?: number; max?: number } = {}): Var<number> {
  const { min = 0, max = 2 ** 31 - 1 } = opts;
  const problem = `must be a whole number from ${min} to ${max}`;
  return variable(fallback, (raw) => {
    if (!/^-?\d+$/.test(raw)) return { problem };
    const n = Number(raw);
    return n < min || n > max ? { problem } : n;
  });
}

/** Like intVar, but undefined when unset (an optional feature, such as a metrics port). */
export function optionalIntVar(opts: { min?: number; max?: number } = {}): Var<number | undefined> {
  const inner = intVar(0, opts);
  return variable<number | undefined>(undefined, (raw) => {
    const out = inner.safeParse(raw);
    return out.success ? out.data : { problem: out.error.issues[0]?.message ?? 'is invalid' };
  });
}

/** Free text, `fallback` when unset. */
export function textVar(fallback: string): Var<string> {
  return variable(fallback, (raw) => raw);
}

/**
 * A Redis key prefix, `fallback` when unset: 1 to 100 letters, digits, `-`, `_`, `.` or `:`, neither starting nor
 * ending with `:` (keys add their own). No glob characters, so `<prefix>:*` matches exactly the keys under it.
 */
export function keyPrefixVar(fallback: string): Var<string> {
  const problem = 'must be 1 to 100 letters, digits, -, _, . or :, not starting or ending with :';
  return variable(fallback, (raw) => (/^(?!:)[A-Za-z0-9_.:-]{1,100}(?<!:)$/.test(raw) ? raw : { problem }));
}

/**
 * An address to listen on, `fallback` when unset: an IPv4 or IPv6 literal (`0.0.0.0` and `::` are every interface)
 * or a host name. Anything else would fail only at listen(), after the process had opened its dependencies.
 */
export function bindAddressVar(fallback: string): Var<string> {
  const problem = 'must be an IP address or a host name';
  return variable(fallback, (raw) =>
    isIP(raw) !== 0 ||
    /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
      raw,
    )
      ? raw
      : { problem },
  );
}

/** One of `values`, `fallback` when unset. */
export function oneOfVar<const T extends string>(values: readonly T[], fallback: T): Var<T> {
  const problem = `must be one of ${values.join(', ')}`;
  return variable(fallback, (raw) =>
    (values as readonly string[]).includes(raw) ? (raw as T) : { problem },
  );
}

/** An absolute URL with one of `protocols` (without the trailing slash), `fallback` when unset. */
export function urlVar(fallback: string, protocols: readonly string[] = ['http:', 'https:']): Var<string> {
  const problem = `must be an absolute URL (${protocols.map((p) => `${p}//`).join(' or ')})`;
  return variable(fallback, (raw) => {
    try {
      const url = new URL(raw);
      return protocols.includes(url.protocol) ? raw.replace(/\/+$/, '') : { problem };
    } catch {
      return { problem };
    }
  });
}

/** Whether a URL's host is this machine (`localhost`, 127.0.0.0/8, `[::1]`): plain http cannot leave it. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * An issuer URL (a token's `iss`, an OpenID Provider's issuer): like urlVar, and in `production` https unless its
 * host is loopback. The spec names the issuer an HTTPS one and OIDC Discovery requires an https issuer; loopback
 * http stays allowed for local runs and tests.
 */
export function issuerUrlVar(fallback: string, production: boolean): Var<string> {
  const inner = urlVar(fallback);
  const problem = 'must be an https:// URL in production (http:// only on a loopback host)';
  return variable(fallback, (raw) => {
    const out = inner.safeParse(raw);
    if (!out.success) return { problem: out.error.issues[0]?.message ?? 'is invalid' };
    const url = new URL(out.data);
    return production && url.protocol === 'http:' && !isLoopbackHost(url.hostname) ? { problem } : out.data;
  });
}

/**
 * A host's public base URL: `http://localhost:<port>` outside production (not 127.0.0.1: browsers refuse an IP
 * address as a passkey domain, and WEBAUTHN_RP_ID defaults to this host name), required in production, where no
 * local default can be right.
 */
export function publicUrlVar(production: boolean, port: number, url: Var<string> = urlVar('')): Var<string> {
  return checkedVar(
    () => (production ? { problem: 'is required in production' } : `http://localhost:${port}`),
    (raw) => {
      const out = url.safeParse(raw);
      return out.success ? out.data : { problem: out.error.issues[0]?.message ?? 'is invalid' };
    },
  );
}

/**
 * A secret: required when `production`, a development default otherwise. Its value never appears in a message,
 * a log line or an error.
 */
export function secretVar<T>(production: boolean, development: T, parse: (raw: string) => Parsed<T>): Var<T> {
  return checkedVar(() => (production ? { problem: 'is required in production' } : development), parse);
}

/** Express's `trust proxy` setting from TRUST_PROXY: unset = false, `true`, a hop count, or addresses/subnets. */
export type TrustProxy = boolean | number | string;
export function trustProxyVar(): Var<TrustProxy> {
  return variable<TrustProxy>(false, (raw) => {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    if (/^\d+$/.test(raw)) return Number(raw);
    return raw;
  });
}

/**
 * Parses `env` against `vars` (plus `check`, for rules between variables) and hands the values to `build`. Throws
 * a ConfigError listing every bad variable.
 */
export function readConfig<S extends Vars, T>(
  vars: S,
  env: Env,
  build: (values: VarValues<S>) => T,
  check?: (values: VarValues<S>) => { variable: string; problem: string }[],
): T {
  const picked: Record<string, string | undefined> = {};
  for (const name of Object.keys(vars)) picked[name] = env[name];
  const result = z.object(vars).safeParse(picked);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((i) => ({
        variable: String(i.path[0] ?? '(environment)'),
        problem: i.message,
      })),
    );
  }
  const values = result.data as VarValues<S>;
  // Every process schema spreads processVars, so the rules between its variables hold for every process.
  const shared =
    'REDIS_SENTINELS' in vars ? processConfigCheck(values as unknown as VarValues<ProcessVars>) : [];
  const problems = [...shared, ...(check?.(values) ?? [])];
  if (problems.length > 0) throw new ConfigError(problems);
  return build(values);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/**
 * Development-only KEK: hosts use it when KEY_ENCRYPTION_KEY is unset outside production, and anyone who asks for it
 * with KEY_ENCRYPTION_KEY=development. It is public (it is in this source): nothing real may be sealed under it.
 */
const DEVELOPMENT_KEK = Buffer.alloc(32, 7);
/** The KEY_ENCRYPTION_KEY value that asks for the development KEK by name (refused in production). */
export const DEVELOPMENT_KEK_NAME = 'development';

/** Whether `bytes` are the development KEK's (however they were given). */
export function isDevelopmentKek(bytes: Buffer): boolean {
  return bytes.equals(DEVELOPMENT_KEK);
}

/**
 * KEY_ENCRYPTION_KEY for a process that must never fall back to the development KEK (the admin tool): undefined
 * when unset, and the process refuses to seal or open until a key is named.
 */
export function namedKekVar(production: boolean): Var<Buffer | undefined> {
  return variable<Buffer | undefined>(undefined, (raw) => kekOf(production, raw));
}

/** KEY_ENCRYPTION_KEY's text: 32 bytes in base64, or `development` outside production. */
export function kekOf(production: boolean, raw: string): Buffer | { problem: string } {
  if (raw !== DEVELOPMENT_KEK_NAME) return kekBytes(raw);
  return production ? { problem: 'cannot be the development key in production' } : DEVELOPMENT_KEK;
}
const DEVELOPMENT_SUBJECT_SECRET = 'development-only-subject-secret';

function kekBytes(raw: string): Buffer | { problem: string } {
  const key = Buffer.from(raw, 'base64');
  // Standard or URL-safe base64 (Node decodes both), padded or not.
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) && key.length === 32
    ? key
    : { problem: 'must be 32 bytes, base64-encoded' };
}

/** A comma-separated list of `host:port` (REDIS_SENTINELS, REDIS_CLUSTER_NODES); undefined when unset. */
function nodesVar(): Var<RedisNode[] | undefined> {
  const problem = 'must be a comma-separated list of host:port';
  return variable<RedisNode[] | undefined>(undefined, (raw) => {
    const nodes: RedisNode[] = [];
    for (const part of raw.split(',')) {
      const m = /^\s*([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})\s*$/.exec(part);
      const port = Number(m?.[2]);
      if (!m?.[1] || port < 1 || port > 65_535) return { problem };
      nodes.push({ host: m[1].replace(/^\[|\]$/g, ''), port });
    }
    return nodes;
  });
}

/** `true` or `false`, `fallback` when unset. */
export function boolVar(fallback: boolean): Var<boolean> {
  return variable(fallback, (raw) =>
    raw === 'true' ? true : raw === 'false' ? false : { problem: 'must be true or false' },
  );
}

/**
 * What every process of the fleet reads (hosts, worker, admin tool): where PostgreSQL and Redis are and how long a
 * call to them may take (RELIABILITY.md), the KEK, logging, metrics and tracing.
 */
export function processVars(production: boolean) {
  return {
    LOG_LEVEL: oneOfVar(LOG_LEVELS, 'info'),
    DATABASE_URL: urlVar(DEFAULT_DATABASE_URL, ['postgresql:', 'postgres:']),
    DB_POOL_MAX: intVar(10, { min: 1, max: 1000 }),
    DB_CONNECT_TIMEOUT_MS: intVar(2000, { min: 1 }),
    DB_STATEMENT_TIMEOUT_MS: intVar(2000, { min: 1 }),
    DATABASE_POOL_MODE: oneOfVar(['session', 'transaction'] as const, 'session'),
    // Audited changes wait for the audit chain's one lock under their own limit, not DB_STATEMENT_TIMEOUT_MS (a
    // stalled database's bound): below the audited transaction's 30 s (libs/audit chain-wait.ts).
    AUDIT_CHAIN_WAIT_MS: intVar(15_000, { min: 100, max: 25_000 }),
    AUDIT_WRITERS_PER_PROCESS: intVar(4, { min: 1, max: 64 }),
    REDIS_URL: urlVar(DEFAULT_REDIS_URL, ['redis:', 'rediss:']),
    REDIS_SENTINELS: nodesVar(),
    REDIS_SENTINEL_MASTER: variable<string | undefined>(undefined, (raw) =>
      /^[A-Za-z0-9_.-]{1,100}$/.test(raw) ? raw : { problem: 'must be 1 to 100 letters, digits, -, _ or .' },
    ),
    REDIS_CLUSTER_NODES: nodesVar(),
    REDIS_USERNAME: variable<string | undefined>(undefined, (raw) => raw),
    REDIS_PASSWORD: variable<string | undefined>(undefined, (raw) => raw),
    REDIS_TLS: boolVar(false),
    REDIS_CONNECT_TIMEOUT_MS: intVar(2000, { min: 1 }),
    REDIS_COMMAND_TIMEOUT_MS: intVar(1000, { min: 1 }),
    // Single-use claims (replay sets) wait for this many replicas before they are honoured (single-use-claim.ts):
    // 0 on a single server, 1 behind Sentinel or on a Cluster with replicas (deploy/ overlays).
    REDIS_CLAIM_REPLICAS: intVar(0, { min: 0, max: 16 }),
    // How long a claim waits for them; below REDIS_COMMAND_TIMEOUT_MS (processConfigCheck).
    REDIS_CLAIM_WAIT_MS: intVar(250, { min: 1, max: 5000 }),
    KEY_ENCRYPTION_KEY: secretVar(production, DEVELOPMENT_KEK, (raw) => kekOf(production, raw)),
    KEY_ENCRYPTION_KEYS_PREVIOUS: variable<Buffer[]>([], (raw) => {
      const keys = raw.split(',').map((part) => kekBytes(part.trim()));
      const bad = keys.find((k) => !Buffer.isBuffer(k));
      return bad
        ? { problem: 'must be a comma-separated list of 32-byte keys, base64-encoded' }
        : (keys as Buffer[]);
    }),
    METRICS_PORT: optionalIntVar({ min: 1, max: 65_535 }),
    // Loopback unless asked: the metrics name routes and counts that are nobody's business outside the operators.
    // Kubernetes sets 0.0.0.0 behind a NetworkPolicy that admits only the monitoring namespace (deploy/k8s).
    METRICS_BIND_HOST: bindAddressVar('127.0.0.1'),
    OTEL_EXPORTER_OTLP_ENDPOINT: variable<string | undefined>(undefined, (raw) => raw),
    // The OpenTelemetry SDK's own variables this fleet honours (deploy/observability/README.md), read here like every
    // other variable: the tracing code takes them from the parsed configuration, never from process.env.
    OTEL_SDK_DISABLED: boolVar(false),
    OTEL_TRACES_EXPORTER: variable<string | undefined>(undefined, (raw) => raw),
    OTEL_SERVICE_NAME: variable<string | undefined>(undefined, (raw) => raw || undefined),
    OTEL_EXPORTER_OTLP_PROTOCOL: variable<OtlpProtocol | undefined>(undefined, otlpProtocol),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: variable<OtlpProtocol | undefined>(undefined, otlpProtocol),
    OTEL_TRACES_SAMPLER: oneOfVar(TRACE_SAMPLERS, 'parentbased_always_on'),
    OTEL_TRACES_SAMPLER_ARG: variable<number>(1, (raw) => {
      const ratio = Number(raw);
      return raw.trim() !== '' && ratio >= 0 && ratio <= 1
        ? ratio
        : { problem: 'must be a number from 0 to 1' };
    }),
    OTEL_BSP_SCHEDULE_DELAY: intVar(5000, { min: 1 }),
  };
}

/** The OTLP/HTTP encodings the exporter speaks. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';
const otlpProtocol = (raw: string): Parsed<OtlpProtocol> =>
  raw === 'http/protobuf' || raw === 'http/json' ? raw : { problem: 'must be http/protobuf or http/json' };

/** The samplers the tracing code builds (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = ['parentbased_always_on', 'parentbased_traceidratio'] as const;

/** Tracing's settings, from the process's configuration (the SDK's variables, parsed with every other one). */
export interface TracingSettings {
  /** Where spans go (OTEL_EXPORTER_OTLP_ENDPOINT); tracing is off when unset. */
  otlpEndpoint: string | undefined;
  /** OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none: off even with an endpoint. */
  disabled: boolean;
  /** OTEL_SERVICE_NAME: overrides the process's name. */
  serviceName: string | undefined;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf. */
  protocol: OtlpProtocol;
  sampler: (typeof TRACE_SAMPLERS)[number];
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of parentbased_traceidratio. */
  samplerRatio: number;
  /** OTEL_BSP_SCHEDULE_DELAY: the export interval (ms). */
  scheduleDelayMs: number;
}
export type ProcessVars = ReturnType<typeof processVars>;

export interface ProcessConfig {
  production: boolean;
  logLevel: LogLevel;
  databaseUrl: string;
  /** PostgreSQL bounds (the shape of @svc/db's DbBounds). */
  db: {
    poolMax: number;
    connectTimeoutMs: number;
    statementTimeoutMs: number;
    /** DATABASE_POOL_MODE: `transaction` behind PgBouncer's transaction pooling. */
    poolMode: 'session' | 'transaction';
  };
  /**
   * How an audited change waits for the audit chain (the shape of @svc/audit's ChainWaitBounds): for its turn among
   * the process's `writersPerProcess` (AUDIT_WRITERS_PER_PROCESS, default 4) and then for the chain head's lock,
   * `waitMs` in all (AUDIT_CHAIN_WAIT_MS, default 15000), before it is refused (503, nothing changed).
   */
  auditChainWait: { waitMs: number; writersPerProcess: number };
  /** REDIS_URL (single server); `redisTarget` is where Redis really is. */
  redisUrl: string;
  /** Single server, Sentinel or Cluster, with credentials: what `createRedis` connects to. */
  redisTarget: RedisTarget;
  /** Redis bounds (RedisBounds). */
  redis: { connectTimeoutMs: number; commandTimeoutMs: number };
  /** REDIS_CLAIM_REPLICAS and REDIS_CLAIM_WAIT_MS: what a single-use claim waits for (claimOnce). */
  redisClaim: ClaimDurability;
  /** The key-encryption key's 32 bytes (token-core's kekFromBytes makes the Kek). A secret. */
  kekBytes: Buffer;
  /** KEY_ENCRYPTION_KEYS_PREVIOUS: keys that only open (a KEK rotation in progress). Secrets. */
  previousKekBytes: Buffer[];
  metricsPort: number | undefined;
  /** Where the metrics port listens (METRICS_BIND_HOST). */
  metricsBindHost: string;
  /** Tracing is on when set. */
  otlpEndpoint: string | undefined;
  /** Tracing's settings (with `otlpEndpoint`): what startTelemetry takes. */
  tracing: TracingSettings;
}

export function processConfigOf(production: boolean, v: VarValues<ProcessVars>): ProcessConfig {
  return {
    production,
    logLevel: v.LOG_LEVEL,
    databaseUrl: v.DATABASE_URL,
    db: {
      poolMax: v.DB_POOL_MAX,
      connectTimeoutMs: v.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: v.DB_STATEMENT_TIMEOUT_MS,
      poolMode: v.DATABASE_POOL_MODE,
    },
    auditChainWait: { waitMs: v.AUDIT_CHAIN_WAIT_MS, writersPerProcess: v.AUDIT_WRITERS_PER_PROCESS },
    redisUrl: v.REDIS_URL,
    redisTarget: redisTargetOf(v),
    redis: { connectTimeoutMs: v.REDIS_CONNECT_TIMEOUT_MS, commandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS },
    redisClaim: { replicas: v.REDIS_CLAIM_REPLICAS, waitMs: v.REDIS_CLAIM_WAIT_MS },
    kekBytes: v.KEY_ENCRYPTION_KEY,
    previousKekBytes: v.KEY_ENCRYPTION_KEYS_PREVIOUS,
    metricsPort: v.METRICS_PORT,
    metricsBindHost: v.METRICS_BIND_HOST,
    otlpEndpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT,
    tracing: {
      otlpEndpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT,
      disabled: v.OTEL_SDK_DISABLED || v.OTEL_TRACES_EXPORTER === 'none',
      serviceName: v.OTEL_SERVICE_NAME,
      protocol: v.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? v.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
      sampler: v.OTEL_TRACES_SAMPLER,
      samplerRatio: v.OTEL_TRACES_SAMPLER_ARG,
      scheduleDelayMs: v.OTEL_BSP_SCHEDULE_DELAY,
    },
  };
}

/** REDIS_CLUSTER_NODES, else REDIS_SENTINELS, else REDIS_URL (processConfigCheck refuses both lists at once). */
function redisTargetOf(v: VarValues<ProcessVars>): RedisTarget {
  const auth = {
    ...(v.REDIS_USERNAME ? { username: v.REDIS_USERNAME } : {}),
    ...(v.REDIS_PASSWORD ? { password: v.REDIS_PASSWORD } : {}),
    tls: v.REDIS_TLS,
  };
  if (v.REDIS_CLUSTER_NODES) return { mode: 'cluster', nodes: v.REDIS_CLUSTER_NODES, auth };
  if (v.REDIS_SENTINELS) {
    return { mode: 'sentinel', sentinels: v.REDIS_SENTINELS, master: v.REDIS_SENTINEL_MASTER ?? '', auth };
  }
  return { mode: 'single', url: v.REDIS_URL, auth };
}

/** The rules between the process variables (readConfig applies them to every schema that has them). */
export function processConfigCheck(v: VarValues<ProcessVars>): { variable: string; problem: string }[] {
  const problems: { variable: string; problem: string }[] = [];
  if (v.REDIS_SENTINELS && v.REDIS_CLUSTER_NODES) {
    problems.push({
      variable: 'REDIS_SENTINELS',
      problem: 'cannot be set together with REDIS_CLUSTER_NODES',
    });
  }
  if (v.REDIS_SENTINELS && !v.REDIS_SENTINEL_MASTER) {
    problems.push({ variable: 'REDIS_SENTINEL_MASTER', problem: 'is required with REDIS_SENTINELS' });
  }
  // The WAIT is one command of the claim's round trip: past the command bound the host gives up on it first.
  if (v.REDIS_CLAIM_REPLICAS > 0 && v.REDIS_CLAIM_WAIT_MS >= v.REDIS_COMMAND_TIMEOUT_MS) {
    problems.push({ variable: 'REDIS_CLAIM_WAIT_MS', problem: 'must be below REDIS_COMMAND_TIMEOUT_MS' });
  }
  return problems;
}

/** What every HTTP host reads besides processVars: where it listens, how it stops, the fleet's URLs. */
export function hostVars(name: HostName, production: boolean) {
  const urls = Object.fromEntries(
    HOST_NAMES.map((h) => [`${h.toUpperCase()}_URL`, publicUrlVar(production, DEFAULT_PORTS[h])]),
  ) as Record<`${Uppercase<HostName>}_URL`, Var<string>>;
  return {
    ...processVars(production),
    ...urls,
    // Only the management host itself needs its public URL in production: no other host links to it, so adding the
    // management host asks nothing new of the others' deployments.
    MANAGEMENT_URL:
      name === 'management'
        ? publicUrlVar(production, DEFAULT_PORTS.management)
        : urlVar(`http://localhost:${DEFAULT_PORTS.management}`),
    // The OpenID Provider's issuer too: https in production.
    OIDC_URL: publicUrlVar(production, DEFAULT_PORTS.oidc, issuerUrlVar('', production)),
    PORT: intVar(DEFAULT_PORTS[name], { max: 65_535 }),
    BIND_HOST: bindAddressVar('0.0.0.0'),
    WEB_CONCURRENCY: intVar(1, { min: 1, max: 256 }),
    SHUTDOWN_GRACE_MS: intVar(10_000),
    TRUST_PROXY: trustProxyVar(),
    ISSUER_URL: issuerUrlVar('https://issuer.local.test', production),
    // Where a person reads the mail this fleet sends (`pnpm start` sets it when it runs the development mailbox).
    DEV_MAILBOX_URL: urlVar(''),
    SUBJECT_SECRET: secretVar(production, DEVELOPMENT_SUBJECT_SECRET, (raw) =>
      raw.length >= 16 ? raw : { problem: 'must be at least 16 characters' },
    ),
  };
}
export type HostVars = ReturnType<typeof hostVars>;

export interface HostConfig extends ProcessConfig {
  name: HostName;
  port: number;
  bindHost: string;
  /** Processes to fork sharing the port (1 = no cluster). */
  webConcurrency: number;
  /** How long shutdown waits for handlers still running after their clients left. */
  shutdownGraceMs: number;
  trustProxy: TrustProxy;
  /** The `iss` of every token, without a trailing slash. */
  issuer: string;
  /** Public base URL of every host of the fleet, without a trailing slash. */
  urls: Record<HostName, string>;
  /** HMAC secret of pairwise subjects. A secret. */
  subjectSecret: string;
  /** The development mailbox's page (DEV_MAILBOX_URL), never in production: named where mail is sent, linked from `/`. */
  devMailboxUrl: string | undefined;
}

export function hostConfigOf(name: HostName, production: boolean, v: VarValues<HostVars>): HostConfig {
  return {
    ...processConfigOf(production, v),
    name,
    port: v.PORT,
    bindHost: v.BIND_HOST,
    webConcurrency: v.WEB_CONCURRENCY,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    trustProxy: v.TRUST_PROXY,
    issuer: v.ISSUER_URL,
    urls: {
      connect: v.CONNECT_URL,
      native: v.NATIVE_URL,
      session: v.SESSION_URL,
      device: v.DEVICE_URL,
      oidc: v.OIDC_URL,
      management: v.MANAGEMENT_URL,
    },
    subjectSecret: v.SUBJECT_SECRET,
    devMailboxUrl: production ? undefined : v.DEV_MAILBOX_URL || undefined,
  };
}
