// The shared configuration schema: every bad value fails with a message naming its variable and never its value.
import {
  ConfigError,
  type Env,
  type HostConfig,
  hostConfigOf,
  hostVars,
  keyPrefixVar,
  readConfig,
} from './config';
import { isProduction } from './node-env';

function read(env: Env): HostConfig {
  const production = isProduction(env);
  return readConfig(hostVars('session', production), env, (v) => hostConfigOf('session', production, v));
}

/** The ConfigError `env` raises (the test fails when it raises none). */
function problems(env: Env): ConfigError {
  try {
    read(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const KEK = Buffer.alloc(32, 3).toString('base64');
const PRODUCTION = {
  NODE_ENV: 'production',
  KEY_ENCRYPTION_KEY: KEK,
  SUBJECT_SECRET: 'a-long-enough-subject-secret',
  CONNECT_URL: 'https://connect.example.com',
  NATIVE_URL: 'https://native.example.com',
  SESSION_URL: 'https://session.example.com',
  DEVICE_URL: 'https://device.example.com',
  OIDC_URL: 'https://oidc.example.com',
};

test('the defaults serve a local run', () => {
  const c = read({});
  expect(c).toMatchObject({
    name: 'session',
    port: 4103,
    bindHost: '0.0.0.0',
    webConcurrency: 1,
    shutdownGraceMs: 10_000,
    trustProxy: false,
    issuer: 'https://issuer.local.test',
    redis: { connectTimeoutMs: 2000, commandTimeoutMs: 1000 },
    db: { poolMax: 10, connectTimeoutMs: 2000, statementTimeoutMs: 2000 },
    auditChainWait: { waitMs: 15_000, writersPerProcess: 4 },
    metricsPort: undefined,
    metricsBindHost: '127.0.0.1',
    production: false,
  });
  // localhost, not 127.0.0.1: browsers refuse an IP address as a passkey domain (WEBAUTHN_RP_ID follows the URL).
  expect(c.urls).toEqual({
    connect: 'http://localhost:4101',
    native: 'http://localhost:4102',
    session: 'http://localhost:4103',
    device: 'http://localhost:4104',
    oidc: 'http://localhost:4105',
    management: 'http://localhost:4106',
  });
  expect(c.kekBytes).toHaveLength(32);
});

test('values are parsed: whole numbers, URLs without a trailing slash, TRUST_PROXY forms', () => {
  const c = read({
    PORT: '0',
    DB_POOL_MAX: '25',
    ISSUER_URL: 'https://id.example.com/',
    TRUST_PROXY: '2',
    METRICS_PORT: '9464',
    ...PRODUCTION,
    CONNECT_URL: 'https://connect.example.com//',
  });
  expect([c.port, c.db.poolMax, c.issuer, c.urls.connect, c.trustProxy, c.metricsPort]).toEqual([
    0,
    25,
    'https://id.example.com',
    'https://connect.example.com',
    2,
    9464,
  ]);
  expect(c.kekBytes.equals(Buffer.alloc(32, 3))).toBe(true);
  const urlSafe = Buffer.alloc(32, 0xfb);
  expect(read({ KEY_ENCRYPTION_KEY: urlSafe.toString('base64url') }).kekBytes.equals(urlSafe)).toBe(true);
  expect(read({ METRICS_BIND_HOST: '0.0.0.0' }).metricsBindHost).toBe('0.0.0.0');
  expect(read({ METRICS_BIND_HOST: '::' }).metricsBindHost).toBe('::');
  expect(read({ METRICS_BIND_HOST: 'metrics.pod.local' }).metricsBindHost).toBe('metrics.pod.local');
  expect(read({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  expect(read({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
});

test('KEY_ENCRYPTION_KEY=development names the development key, the one it falls back to, and never in production', () => {
  const fallback = read({}).kekBytes;
  expect(read({ KEY_ENCRYPTION_KEY: 'development' }).kekBytes.equals(fallback)).toBe(true);
  expect(problems({ ...PRODUCTION, KEY_ENCRYPTION_KEY: 'development' }).problems).toEqual([
    { variable: 'KEY_ENCRYPTION_KEY', problem: 'cannot be the development key in production' },
  ]);
});

test.each([
  ['DB_POOL_MAX', 'ten', 'must be a whole number from 1 to 1000'],
  ['DB_POOL_MAX', '1.5', 'must be a whole number from 1 to 1000'],
  ['DB_POOL_MAX', '0', 'must be a whole number from 1 to 1000'],
  ['DB_POOL_MAX', '-3', 'must be a whole number from 1 to 1000'],
  ['DB_POOL_MAX', '1e3', 'must be a whole number from 1 to 1000'],
  ['PORT', '70000', 'must be a whole number from 0 to 65535'],
  ['SHUTDOWN_GRACE_MS', '-1', 'must be a whole number from 0 to 2147483647'],
  ['REDIS_COMMAND_TIMEOUT_MS', '0x10', 'must be a whole number from 1 to 2147483647'],
  ['WEB_CONCURRENCY', '0', 'must be a whole number from 1 to 256'],
  ['METRICS_PORT', 'abc', 'must be a whole number from 1 to 65535'],
  ['METRICS_BIND_HOST', '0.0.0.0:9464', 'must be an IP address or a host name'],
  ['METRICS_BIND_HOST', 'http://0.0.0.0', 'must be an IP address or a host name'],
  ['BIND_HOST', 'every interface', 'must be an IP address or a host name'],
  ['ISSUER_URL', 'issuer.example.com', 'must be an absolute URL (http:// or https://)'],
  ['ISSUER_URL', 'ftp://issuer.example.com', 'must be an absolute URL (http:// or https://)'],
  ['DATABASE_URL', 'mysql://db/x', 'must be an absolute URL (postgresql:// or postgres://)'],
  ['REDIS_URL', '127.0.0.1:6379', 'must be an absolute URL (redis:// or rediss://)'],
  ['CONNECT_URL', 'not a url', 'must be an absolute URL (http:// or https://)'],
  ['LOG_LEVEL', 'verbose', 'must be one of fatal, error, warn, info, debug, trace, silent'],
  ['KEY_ENCRYPTION_KEY', Buffer.alloc(16, 1).toString('base64'), 'must be 32 bytes, base64-encoded'],
  ['KEY_ENCRYPTION_KEY', `${KEK}!!`, 'must be 32 bytes, base64-encoded'],
  ['SUBJECT_SECRET', 'short', 'must be at least 16 characters'],
  ['DATABASE_POOL_MODE', 'statement', 'must be one of session, transaction'],
  ['REDIS_CLUSTER_NODES', '10.0.0.1', 'must be a comma-separated list of host:port'],
  ['REDIS_CLUSTER_NODES', 'a:1,b:99999', 'must be a comma-separated list of host:port'],
  ['REDIS_SENTINELS', 'redis://a:26379', 'must be a comma-separated list of host:port'],
  ['REDIS_TLS', 'yes', 'must be true or false'],
  [
    'KEY_ENCRYPTION_KEYS_PREVIOUS',
    `${KEK},${Buffer.alloc(16, 1).toString('base64')}`,
    'must be a comma-separated list of 32-byte keys, base64-encoded',
  ],
])('%s=%s fails start-up naming the variable', (variable, value, problem) => {
  const err = problems({ [variable]: value });
  expect(err.problems).toEqual([{ variable, problem }]);
  expect(err.message).toContain(`${variable} ${problem}`);
});

test.each([
  'KEY_ENCRYPTION_KEY',
  'SUBJECT_SECRET',
  'CONNECT_URL',
  'NATIVE_URL',
  'SESSION_URL',
  'DEVICE_URL',
  'OIDC_URL',
])('%s is required in production', (variable) => {
  const err = problems({ ...PRODUCTION, [variable]: undefined });
  expect(err.problems).toEqual([{ variable, problem: 'is required in production' }]);
  // Outside production a development value stands in.
  expect(() => read({ [variable]: undefined })).not.toThrow();
});

test.each(['ISSUER_URL', 'OIDC_URL'])('production refuses an http %s that is not loopback', (variable) => {
  const problem = 'must be an https:// URL in production (http:// only on a loopback host)';
  for (const url of [
    'http://id.example.com',
    'http://10.0.0.7:8080',
    'http://127.evil.example',
    'http://[::2]',
  ]) {
    const err = problems({ ...PRODUCTION, [variable]: url });
    expect(err.problems).toEqual([{ variable, problem }]);
    expect(err.message).not.toContain(url);
  }
  // https anywhere, and loopback http for local runs and tests, start; outside production http starts too.
  for (const url of [
    'https://id.example.com',
    'http://127.0.0.1:4105',
    'http://localhost:8080',
    'http://[::1]:9',
  ]) {
    expect(() => read({ ...PRODUCTION, [variable]: url })).not.toThrow();
  }
  expect(() => read({ [variable]: 'http://id.example.com' })).not.toThrow();
  expect(problems({ ...PRODUCTION, [variable]: 'ftp://id.example.com' }).problems).toEqual([
    { variable, problem: 'must be an absolute URL (http:// or https://)' },
  ]);
});

test('a secret value never appears in the message', () => {
  const secret = 'sh0rt-s3cret';
  const kek = Buffer.alloc(31, 9).toString('base64');
  const err = problems({ ...PRODUCTION, SUBJECT_SECRET: secret, KEY_ENCRYPTION_KEY: kek });
  expect(err.message).not.toContain(secret);
  expect(err.message).not.toContain(kek);
  expect(err.problems.map((p) => p.variable).sort()).toEqual(['KEY_ENCRYPTION_KEY', 'SUBJECT_SECRET']);
});

test('every bad variable is listed at once, one per line', () => {
  const err = problems({ PORT: 'x', REDIS_URL: 'nope', DB_STATEMENT_TIMEOUT_MS: '-5' });
  expect(err.problems.map((p) => p.variable).sort()).toEqual([
    'DB_STATEMENT_TIMEOUT_MS',
    'PORT',
    'REDIS_URL',
  ]);
  expect(err.message.split('\n')).toHaveLength(4);
});

test('an empty value counts as unset', () => {
  expect(read({ PORT: '', ISSUER_URL: '  ' })).toMatchObject({
    port: 4103,
    issuer: 'https://issuer.local.test',
  });
});

test('a Redis key prefix: its default when unset, refused with glob characters, spaces or an edge colon', () => {
  const prefix = (raw?: string) => readConfig({ P: keyPrefixVar('host') }, { P: raw }, (v) => v.P);
  expect([prefix(), prefix(''), prefix('ci-7.host:a_b')]).toEqual(['host', 'host', 'ci-7.host:a_b']);
  for (const bad of ['a*', 'a?', '[ab]', 'a b', ':a', 'a:', 'a\\b', 'x'.repeat(101)]) {
    let problems: unknown[] = [];
    try {
      prefix(bad);
    } catch (err) {
      if (err instanceof ConfigError) problems = err.problems;
    }
    expect([bad, problems]).toEqual([
      bad,
      [
        {
          variable: 'P',
          problem: 'must be 1 to 100 letters, digits, -, _, . or :, not starting or ending with :',
        },
      ],
    ]);
  }
});

test('Redis is one server, a Sentinel-watched primary or a Cluster, with credentials and TLS for the last two', () => {
  expect(read({}).redisTarget).toEqual({
    mode: 'single',
    url: 'redis://127.0.0.1:6379',
    auth: { tls: false },
  });
  expect(
    read({
      REDIS_SENTINELS: 's1:26379, [::1]:26380',
      REDIS_SENTINEL_MASTER: 'primary',
      REDIS_USERNAME: 'svc',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: 'true',
    }).redisTarget,
  ).toEqual({
    mode: 'sentinel',
    sentinels: [
      { host: 's1', port: 26379 },
      { host: '::1', port: 26380 },
    ],
    master: 'primary',
    auth: { username: 'svc', password: 'pw', tls: true },
  });
  expect(read({ REDIS_CLUSTER_NODES: 'n1:7000,n2:7001' }).redisTarget).toEqual({
    mode: 'cluster',
    nodes: [
      { host: 'n1', port: 7000 },
      { host: 'n2', port: 7001 },
    ],
    auth: { tls: false },
  });
  expect(read({}).db.poolMode).toBe('session');
  const previous = [Buffer.alloc(32, 4), Buffer.alloc(32, 5)];
  expect(
    read({ KEY_ENCRYPTION_KEYS_PREVIOUS: previous.map((k) => k.toString('base64')).join(', ') })
      .previousKekBytes,
  ).toEqual(previous);
  expect(read({}).previousKekBytes).toEqual([]);
  expect(read({ DATABASE_POOL_MODE: 'transaction' }).db.poolMode).toBe('transaction');
});

test("Sentinel needs its primary's name, and Sentinel and Cluster exclude each other", () => {
  expect(problems({ REDIS_SENTINELS: 's1:26379' }).problems).toEqual([
    { variable: 'REDIS_SENTINEL_MASTER', problem: 'is required with REDIS_SENTINELS' },
  ]);
  expect(
    problems({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: 'n:7000' })
      .problems,
  ).toEqual([{ variable: 'REDIS_SENTINELS', problem: 'cannot be set together with REDIS_CLUSTER_NODES' }]);
  // The password is a secret: never in a message.
  const err = problems({ REDIS_SENTINELS: 's1:26379', REDIS_PASSWORD: 'hunter2-secret' });
  expect(err.message).not.toContain('hunter2-secret');
});

test('a single-use claim waits for REDIS_CLAIM_REPLICAS (none by default) for less than a command may take', () => {
  expect(read({}).redisClaim).toEqual({ replicas: 0, waitMs: 250 });
  expect(read({ REDIS_CLAIM_REPLICAS: '1', REDIS_CLAIM_WAIT_MS: '100' }).redisClaim).toEqual({
    replicas: 1,
    waitMs: 100,
  });
  expect(problems({ REDIS_CLAIM_REPLICAS: '1', REDIS_CLAIM_WAIT_MS: '1000' }).problems).toEqual([
    { variable: 'REDIS_CLAIM_WAIT_MS', problem: 'must be below REDIS_COMMAND_TIMEOUT_MS' },
  ]);
  expect(problems({ REDIS_CLAIM_REPLICAS: '-1' }).problems).toEqual([
    { variable: 'REDIS_CLAIM_REPLICAS', problem: 'must be a whole number from 0 to 16' },
  ]);
  expect(problems({ REDIS_CLAIM_WAIT_MS: '0' }).problems).toEqual([
    { variable: 'REDIS_CLAIM_WAIT_MS', problem: 'must be a whole number from 1 to 5000' },
  ]);
});
