// Session host test support: the real app on a free port, and sessions issued through the issuance core.
import { issueSession, type Principal } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { type Clock, type Env, type Logger, systemClock } from '@svc/platform';
import {
  openInfra,
  provisionAccount,
  provisionApp,
  startTestHost,
  type TestInfra,
  testEnv,
} from '@svc/testkit';
import { createSessionApp } from '../src/app';
import { sessionConfigFromEnv } from '../src/config';
import { type OpenedSessionDeps, openSessionDeps } from '../src/deps';

export interface SessionHarness {
  infra: TestInfra;
  deps: OpenedSessionDeps;
  url: string;
  close(): Promise<void>;
}

/**
 * The host over the real database and Redis, configured from `env` (over testEnv's), on `clock`'s time, logging
 * to `logger` when given (a test's captured log).
 */
export async function startSessionHost(
  env: Env = {},
  opts: { clock?: Clock; logger?: Logger } = {},
): Promise<SessionHarness> {
  const deps = openSessionDeps(sessionConfigFromEnv(testEnv(env)), opts.clock ?? systemClock);
  if (opts.logger) deps.logger = opts.logger;
  const host = await startTestHost(createSessionApp(deps));
  const infra = openInfra();
  return {
    infra,
    deps,
    url: host.url,
    async close() {
      await host.close();
      await deps.close();
      await infra.close();
    },
  };
}

export async function issueFor(
  infra: TestInfra,
  anchor: string,
  principal: Principal,
  authMethod = 'ACCESS_KEY_DIRECT',
) {
  const application = await createApplicationsStore(infra.db).loadApplication({ anchor });
  if (!application) throw new Error(`no application ${anchor}`);
  return issueSession(infra.issuance, { application, principal, authMethod });
}

/** The first refresh tokens of `count` fresh accounts' sessions under `anchor`: the starts of refresh chains. */
export async function accountRefreshTokens(
  infra: TestInfra,
  anchor: string,
  count: number,
): Promise<string[]> {
  const first: string[] = [];
  for (let i = 0; i < count; i++) {
    const account = await provisionAccount(infra);
    first.push((await issueFor(infra, anchor, { kind: 'ACCOUNT', accountId: account.id })).refreshToken);
  }
  return first;
}

/** A new agent or automation owned by `ownerId` and a first workload session for it under `anchor`. */
export async function issueForWorkload(
  infra: TestInfra,
  anchor: string,
  kind: 'AGENT' | 'AUTOMATION',
  ownerId: string,
) {
  const workload = await infra.db.workload.create({ data: { kind, ownerAccountId: ownerId, name: kind } });
  const issued = await issueFor(infra, anchor, {
    kind,
    accountId: ownerId,
    workloadId: workload.id,
    workloadGeneration: workload.generation,
  });
  return { workload, issued };
}

/** A fresh application and account with a first session issued through the issuance core. */
export async function freshSession(infra: TestInfra, opts: Parameters<typeof provisionApp>[1] = {}) {
  const app = await provisionApp(infra, opts);
  const account = await provisionAccount(infra, { givenName: 'Ada', familyName: 'Lovelace' });
  const issued = await issueFor(infra, app.anchor, { kind: 'ACCOUNT', accountId: account.id });
  return { app, account, issued };
}
