// Every host's endpoint table (JSON endpoints and pages alike): each method and path declared once, and each path
// written as a literal in the host's source (or, for libs/signin's assets, the library's), so
// `grep -rn "'<path>'" services libs` lands on the line that declares it (docs/ARCHITECTURE.md), pages and the
// shared sign-in steps (listed by each host at its own literal paths) included.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type HostTable, systemClock } from '@svc/platform';
import { testEnv, uniqueName } from '@svc/testkit';
import { connectTable } from '../services/connect/src/app';
import { connectConfigFromEnv } from '../services/connect/src/config';
import { openConnectDeps } from '../services/connect/src/deps';
import { deviceTable } from '../services/device/src/app';
import { deviceConfigFromEnv } from '../services/device/src/config';
import { openDeviceDeps } from '../services/device/src/deps';
import { managementTable } from '../services/management/src/app';
import { managementConfigFromEnv } from '../services/management/src/config';
import { openManagementDeps } from '../services/management/src/deps';
import { nativeTable } from '../services/native/src/app';
import { nativeConfigFromEnv } from '../services/native/src/config';
import { openNativeDeps } from '../services/native/src/deps';
import { oidcTable } from '../services/oidc/src/app';
import { oidcConfigFromEnv } from '../services/oidc/src/config';
import { openOidcDeps } from '../services/oidc/src/deps';
import { sessionTable } from '../services/session/src/app';
import { sessionConfigFromEnv } from '../services/session/src/config';
import { openSessionDeps } from '../services/session/src/deps';

const ROOT = path.resolve(__dirname, '..');

function sourceIn(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
}

const sourceOf = (host: string) =>
  sourceIn(path.join(ROOT, 'services', host, 'src')) +
  sourceIn(path.join(ROOT, 'libs', 'signin', 'src')) +
  // The management API's routes are declared by the admin commands themselves (one table for both adapters).
  (host === 'management' ? sourceIn(path.join(ROOT, 'libs', 'provisioning', 'src', 'commands')) : '');

function expectLiteralTable(host: string, table: HostTable): void {
  const keys = table.endpoints.map((e) => `${e.method} ${e.path}`);
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  const source = sourceOf(host);
  const missing = table.endpoints.map((e) => e.path).filter((p) => !source.includes(`'${p}'`));
  expect(missing).toEqual([]);
  for (const e of table.endpoints) expect(e.path).toMatch(/^\/[A-Za-z0-9/:._-]*$/);
}

const env = (extra: Record<string, string> = {}) =>
  testEnv({
    RATE_LIMIT_NAMESPACE: uniqueName('tables'),
    MAIL_FROM: 'Tables test <no-reply@localhost>',
    SMTP_URL: 'smtp://127.0.0.1:2525',
    ...extra,
  });

test('session: every path a literal, declared once', async () => {
  const deps = openSessionDeps(sessionConfigFromEnv(env()), systemClock);
  try {
    expectLiteralTable('session', sessionTable(deps));
  } finally {
    await deps.close();
  }
});

test('native: every path a literal, declared once', async () => {
  const deps = openNativeDeps(nativeConfigFromEnv(env({ STEAM_API_KEY: 'test-publisher-key' })), systemClock);
  try {
    expectLiteralTable('native', nativeTable(deps));
  } finally {
    await deps.close();
  }
});

test('connect: every page, sign-in step and JSON path a literal, declared once', async () => {
  const deps = openConnectDeps(
    connectConfigFromEnv(env({ CONNECT_URL: 'http://127.0.0.1:4101' })),
    systemClock,
  );
  try {
    const table = connectTable(deps);
    expect(table.endpoints.map((e) => e.path)).toContain('/inquiries/:exposureKey/passkey/registration');
    expectLiteralTable('connect', table);
  } finally {
    await deps.close();
  }
});

test('device: the approval page and its sign-in steps are in the table, literal and once', async () => {
  const deps = openDeviceDeps(deviceConfigFromEnv(env()), systemClock);
  try {
    const table = deviceTable(deps);
    expect(table.endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining(['GET /device', 'POST /device', 'POST /device/email', 'GET /assets/:name']),
    );
    expectLiteralTable('device', table);
  } finally {
    await deps.close();
  }
});

test('oidc: /authorize, the interaction pages and /end-session in the table, literal and once', async () => {
  const deps = openOidcDeps(oidcConfigFromEnv(env({ OIDC_URL: 'http://localhost:4105' })), systemClock);
  try {
    const table = oidcTable(deps);
    expect(table.endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining([
        'GET /authorize',
        'POST /authorize',
        'GET /interaction/:uid',
        'POST /end-session',
      ]),
    );
    expectLiteralTable('oidc', table);
  } finally {
    await deps.close();
  }
});

test('management: every admin command at a literal /v1/ route, declared once', async () => {
  const deps = openManagementDeps(managementConfigFromEnv(env()), systemClock);
  try {
    const table = managementTable(deps);
    expect(table.endpoints.every((e) => e.path.startsWith('/v1/'))).toBe(true);
    expectLiteralTable('management', table);
  } finally {
    await deps.close();
  }
});
