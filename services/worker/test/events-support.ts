// Events tests' support: a private database with a session host and the real worker as child processes over it
// (so no other suite's worker drains these rows, nor this worker theirs), fixtures issued through the issuance
// core, a subscription, and the SET checked exactly as an application's backend would check it (jose, the
// application's JWK Set from the session host).
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { setEventSubscription } from '@svc/provisioning';
import { type ChildHost, provisionAccount, provisionApp, spawnHost, type TestInfra } from '@svc/testkit';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { type Child, freePort, spawnTsx } from './processes';

/** The issuer the test infrastructure issues under (the default ISSUER_URL), given to the hosts too. */
export const ISSUER = 'https://issuer.local.test';
export const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
export const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';

export function startSessionChild(databaseUrl: string, env: Record<string, string> = {}): Promise<ChildHost> {
  return spawnHost('services/session/src/main.ts', {
    DATABASE_URL: databaseUrl,
    ISSUER_URL: ISSUER,
    ...env,
  });
}

/** The real worker process (`pnpm start:worker`), on its own queue, waiting for its start line. */
export async function startWorkerChild(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Child> {
  const tag = Math.random().toString(36).slice(2, 10);
  const child = spawnTsx('services/worker/src/main.ts', {
    DATABASE_URL: databaseUrl,
    ISSUER_URL: ISSUER,
    WORKER_QUEUE_NAME: `events-${tag}`,
    WORKER_QUEUE_PREFIX: `wkr-test-events-${tag}`,
    SWEEP_INTERVAL_SECONDS: '3600',
    KEY_ROTATION_CHECK_SECONDS: '3600',
    METRICS_PORT: String(await freePort()),
    EVENTS_POLL_MS: '200',
    LOG_LEVEL: 'info',
    ...env,
  });
  await child.waitFor((l) => ((l as { msg?: string }).msg === 'worker started' ? true : undefined), 90_000);
  return child;
}

/** An application subscribed to `url` (every event unless named), an account and a session under it. */
export async function subscribedSession(
  infra: TestInfra,
  url: string,
  opts: { events?: string[]; sectorId?: string } = {},
) {
  const app = await provisionApp(infra, { sectorId: opts.sectorId });
  await setEventSubscription(
    infra.provisioning,
    { production: false, allowPrivate: false },
    app.anchor,
    { url, events: opts.events ?? [] },
    infra.issuance.clock,
  );
  const account = await provisionAccount(infra);
  const issued = await issueFor(infra, app.anchor, account.id);
  return { app, account, issued };
}

export async function issueFor(infra: TestInfra, anchor: string, accountId: string) {
  const application = await createApplicationsStore(infra.db).loadApplication({ anchor });
  if (!application) throw new Error(`no application ${anchor}`);
  return issueSession(infra.issuance, {
    application,
    principal: { kind: 'ACCOUNT', accountId },
    authMethod: 'ACCESS_KEY_DIRECT',
  });
}

/**
 * Verifies a pushed SET as the contract says a backend does: RS256 under the application's key from
 * {session_url}/applications/{anchor}/jwks.json, typ secevent+jwt, iss, aud; returns its claims and its one event.
 */
export async function verifySet(sessionUrl: string, anchor: string, token: string) {
  const jwks = createRemoteJWKSet(new URL(`${sessionUrl}/applications/${anchor}/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: ISSUER,
    audience: anchor,
    typ: 'secevent+jwt',
    algorithms: ['RS256'],
  });
  expect(decodeProtectedHeader(token)).toEqual({
    alg: 'RS256',
    kid: protectedHeader.kid,
    typ: 'secevent+jwt',
  });
  expect(Object.keys(payload).sort()).toEqual(['aud', 'events', 'iat', 'iss', 'jti', 'txn']);
  const events = payload.events as Record<string, Record<string, unknown>>;
  expect(Object.keys(events)).toHaveLength(1);
  const [type, event] = Object.entries(events)[0]!;
  return { claims: payload, type, event };
}
