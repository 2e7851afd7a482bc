// The session host's schema and its start-up: a bad value stops the process with a message naming the variable,
// exit code 1, and never a secret's value or a stack.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ConfigError } from '@svc/platform';
import { testEnv } from '@svc/testkit';
import { sessionConfigFromEnv } from '../src/config';

const ROOT = path.resolve(__dirname, '../../..');

test('its own variables: retry window, recheck, session cache, and the JWK Set max-age rule', () => {
  const c = sessionConfigFromEnv(
    testEnv({
      REFRESH_RETRY_WINDOW_MS: '0',
      INTROSPECT_RECHECK_SECONDS: '30',
      KEY_PREPUBLISH_SECONDS: '120',
    }),
  );
  expect([c.retryAllowanceMs, c.recheckSeconds, c.sessionCacheMs, c.jwksMaxAgeSeconds]).toEqual([
    0, 30, 1000, 120,
  ]);
  expect(sessionConfigFromEnv(testEnv({ JWKS_MAX_AGE_SECONDS: '900' })).jwksMaxAgeSeconds).toBe(300);
});

test.each([
  ['REFRESH_RETRY_WINDOW_MS', '-5'],
  ['INTROSPECT_RECHECK_SECONDS', '0'],
  ['SESSION_CACHE_MS', 'soon'],
  ['KEY_CACHE_TTL_MS', '1.5'],
  ['ERRAND_TTL_SECONDS', '0'],
  ['VERIFIED_TOKEN_CACHE_SIZE', '-1'],
])('%s=%s is refused, naming the variable', (variable, value) => {
  expect(() => sessionConfigFromEnv(testEnv({ [variable]: value }))).toThrow(ConfigError);
  try {
    sessionConfigFromEnv(testEnv({ [variable]: value }));
  } catch (err) {
    expect((err as ConfigError).problems.map((p) => p.variable)).toEqual([variable]);
  }
});

test('the process refuses to start: exit 1, every bad variable named, no secret and no stack on stderr', async () => {
  const secret = 'not-long-enough';
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['services/session/src/main.ts'],
      {
        cwd: ROOT,
        timeout: 60_000,
        env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: 'eighty', SUBJECT_SECRET: secret },
      },
      (err, _stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : 0, stderr }),
    );
  });
  expect(code).toBe(1);
  expect(stderr).toContain('session host failed to start: invalid configuration:');
  expect(stderr).toContain('PORT must be a whole number from 0 to 65535');
  expect(stderr).toContain('KEY_ENCRYPTION_KEY is required in production');
  expect(stderr).toContain('SUBJECT_SECRET must be at least 16 characters');
  expect(stderr).not.toContain(secret);
  // No stack frame ("    at fn (file.ts:1:2)").
  expect(stderr).not.toMatch(/^\s+at |\.ts:\d+/m);
}, 90_000);
