// What a fault test builds its host over: the test infrastructure reached through fault proxies, and what its load
// records of each answer.
import { createPrisma } from '@svc/db';
import { testUrls } from './config';
import { type DependencyProxies, proxyDependencies } from './fault-checks';
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

/** What the load records of an HTTP answer: its status, its reason (a 503's TemporarilyUnavailable), Retry-After. */
export function loadAnswer(res: { status: number; body?: { reason?: string }; headers: Headers }): {
  status: number;
  reason?: string;
  retryAfter: string | null;
} {
  return { status: res.status, reason: res.body?.reason, retryAfter: res.headers.get('retry-after') };
}
