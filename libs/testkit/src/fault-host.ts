// What a fault test builds its host over: the test infrastructure reached through fault proxies, what every host's
// fault file opens alike, and what its load records of each answer.
import { createPrisma, type DbBounds, STATEMENT_MARGIN_MS } from '@svc/db';
import { createMetrics } from '@svc/platform';
import { captureLogger } from './capture-logger';
import { testUrls } from './config';
import { type DependencyProxies, proxyDependencies, recordFaultFigures } from './fault-checks';
import type { FaultFigures } from './fault-load';
import type { TestInfra } from './infra';
import { useInfra } from './per-file';

export interface ProxiedInfra {
  /** The file's infrastructure with its PostgreSQL and Redis connections through `proxies()`: the host's. */
  infra: TestInfra;
  proxies(): DependencyProxies;
  /** Disconnects the proxied database and closes the proxies; call it after closing the host over them. */
  close(): Promise<void>;
}

/**
 * Fault proxies in front of the test PostgreSQL and Redis, and the file's infrastructure through them, opened in
 * beforeAll hooks (declare it before the hook that starts the host). Provisioning goes through a direct useInfra,
 * so a fault never reaches the test's own setup.
 */
export function useProxiedInfra(): ProxiedInfra {
  let proxies: DependencyProxies | undefined;
  beforeAll(async () => {
    proxies = await proxyDependencies();
  });
  const opened = (): DependencyProxies => {
    if (!proxies) throw new Error('useProxiedInfra: the proxies are read before their beforeAll opened them');
    return proxies;
  };
  const infra = useInfra(() => ({
    over: createPrisma(opened().pg.urlFor(testUrls.database)),
    redisUrl: opened().redis.urlFor(testUrls.redis),
  }));
  return {
    infra,
    proxies: opened,
    async close() {
      await infra.db.$disconnect();
      await proxies?.close();
    },
  };
}

/**
 * The longest a request may take whose dependency calls are `redisCommands` Redis commands, a PostgreSQL connection
 * and `statements` statements, each at its configured bound (the client's statement timeout has its margin).
 */
export function dependencyBoundMs(
  config: { redis: { commandTimeoutMs: number }; db: DbBounds },
  calls: { redisCommands: number; statements: number },
): number {
  const { db } = config;
  return (
    calls.redisCommands * config.redis.commandTimeoutMs +
    db.connectTimeoutMs +
    calls.statements * (db.statementTimeoutMs + STATEMENT_MARGIN_MS)
  );
}

/**
 * A request's own work beyond its dependency calls (routing, signing or verifying, the client's connection), added
 * to a fault file's bound. Time the test process was held up by a loaded machine is not in it: runContainedFault
 * takes that off each request first.
 */
export const FAULT_SLACK_MS = 1000;

/**
 * What a host's fault file opens the same way: its figures (recordFaultFigures), the host's captured log and
 * metrics, the infrastructure direct to PostgreSQL and Redis (provisioning is not under test) and the host's own,
 * through the proxies (useProxiedInfra). Call it at the top of the file, before the hook that starts the host.
 */
export function useFaultSuite<F = FaultFigures>(host: string) {
  return {
    figures: recordFaultFigures<F>(host),
    log: captureLogger(host),
    metrics: createMetrics(host),
    infra: useInfra(),
    proxied: useProxiedInfra(),
  };
}

/** What the load records of an HTTP answer: its status, its reason (a 503's TemporarilyUnavailable), Retry-After. */
export function loadAnswer(res: { status: number; body?: { reason?: string }; headers: Headers }): {
  status: number;
  reason?: string;
  retryAfter: string | null;
} {
  return { status: res.status, reason: res.body?.reason, retryAfter: res.headers.get('retry-after') };
}
