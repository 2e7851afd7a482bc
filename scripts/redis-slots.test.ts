// A lint on Redis Cluster safety: every script, transaction and pipeline in the source takes only keys of one hash
// slot (else Cluster answers CROSSSLOT). Each source file that runs one is listed below with a driver that runs its
// calls in their Cluster key form (a connection that says it is a Cluster, over the test Redis) while every call's
// keys are recorded; a file that runs one and is not listed fails the first test.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bullPrefix,
  claimOnce,
  createBrowserSessionStore,
  createRedis,
  type Redis,
  systemClock,
  UNREPLICATED_CLAIMS,
  UnreplicatedClaimError,
} from '@svc/platform';
import { testUrls, uniqueName } from '@svc/testkit';
import { createPollingStore } from '../libs/device-grant/src/store/polling';
import { interactionsOn } from './redis-fixtures';

const ROOT = path.resolve(__dirname, '..');
/** Redis Cluster's CRC16 slot of a key, hash tags included (the module ioredis itself routes with; no types). */
const calculateSlot = require('cluster-key-slot') as (key: string) => number;

/** A call that takes several keys at once in one round trip: a script, a transaction, a pipeline, a custom command. */
const MULTI_KEY_CALL = /\.(eval|evalsha|multi|pipeline|defineCommand)\(/;

/**
 * The drivers: each runs every multi-key call of its file over `redis` (Cluster key form). Files whose calls never
 * reach a Cluster say why instead.
 */
const DRIVERS: Record<string, ((redis: Redis) => Promise<void>) | { exempt: string }> = {
  'libs/platform/src/browser-session.ts': async (redis) => {
    const store = createBrowserSessionStore(redis, {
      namespace: uniqueName('slots'),
      ttlSeconds: 60,
      clock: systemClock,
    });
    const id = await store.issue();
    await store.write(id, { a: '1', code: 'x' });
    await store.take(id, 'a');
    await store.takeIf(id, 'code', 'x');
    await store.write(id, { code: 'y' });
    await store.guess(id, 'code', 'n', 3);
    const next = await store.rotate(id);
    expect(next).toBeDefined();
    await store.end(next as string);
  },
  'services/oidc/src/store/interactions.ts': async (redis) => {
    const { store, parked } = interactionsOn(redis);
    const uid = await store.park(parked);
    await store.flag(uid, { consentReviewed: true });
    expect(await store.take(uid)).toBeDefined();
    const other = await store.park(parked);
    await store.takeExpiredReturn(other);
  },
  'libs/device-grant/src/store/polling.ts': async (redis) => {
    const store = createPollingStore(redis, {
      prefix: uniqueName('slots'),
      leewayMs: 0,
      stepSeconds: 5,
      capSeconds: 60,
      keepAfterExpiryMs: 1000,
      commandTimeoutMs: 1000,
    });
    const hash = uniqueName('code');
    const expiresAt = new Date(Date.now() + 60_000);
    await store.seed(hash, 5, expiresAt);
    await store.poll(hash, new Date());
    await store.markDeciding(hash, expiresAt);
    await store.markFinal(hash, 'denied', expiresAt);
  },
  'libs/platform/src/single-use-claim.ts': async (redis) => {
    // The SET NX and its WAIT in one pipeline: one key, so one slot and the master that took the SET. The test
    // Redis has no replica, so a WAIT for one is refused (and the claim released), which is the claim's own rule.
    const key = uniqueName('slots-claim');
    await expect(claimOnce(redis, key, 60, { replicas: 1, waitMs: 10 })).rejects.toThrow(
      UnreplicatedClaimError,
    );
    expect(await claimOnce(redis, key, 60, UNREPLICATED_CLAIMS)).toBe(true);
  },
  'libs/testkit/src/hostile.ts': {
    exempt: "a test's snapshot of the test Redis (one server), never run on a Cluster",
  },
};

/** The TypeScript sources under `dir` (no tests, no generated code, no dependencies). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!['node_modules', 'generated', 'test', 'dist'].includes(entry.name)) out.push(...sourceFiles(rel));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      out.push(rel);
    }
  }
  return out;
}

interface Recorded {
  call: string;
  keys: string[];
}

type Pipeline = ReturnType<Redis['multi']> & { _queue: { name: string; getKeys(): (string | Buffer)[] }[] };

/** `real` as a Cluster would be used (isCluster), recording the keys of each multi-key call before running it. */
function recording(real: Redis, calls: Recorded[]): Redis {
  const custom = new Map<string, number>();
  const proxy: Redis = new Proxy(real, {
    get(target, prop) {
      if (prop === 'isCluster') return true;
      if (prop === 'eval' || prop === 'evalsha') {
        return (script: string, numKeys: number | string, ...rest: unknown[]) => {
          calls.push({ call: String(prop), keys: rest.slice(0, Number(numKeys)).map(String) });
          return (target[prop] as (...a: unknown[]) => unknown)(script, numKeys, ...rest);
        };
      }
      if (prop === 'multi' || prop === 'pipeline') {
        return (...args: unknown[]) => {
          const p = (target[prop] as (...a: unknown[]) => Pipeline)(...args);
          const exec = p.exec.bind(p);
          p.exec = ((...e: Parameters<typeof exec>) => {
            calls.push({ call: String(prop), keys: p._queue.flatMap((c) => c.getKeys().map(String)) });
            return exec(...e);
          }) as typeof p.exec;
          return p;
        };
      }
      if (prop === 'defineCommand') {
        return (name: string, def: { numberOfKeys?: number; lua: string }) => {
          custom.set(name, def.numberOfKeys ?? 0);
          target.defineCommand(name, def);
        };
      }
      if (typeof prop === 'string' && custom.has(prop)) {
        return (...args: unknown[]) => {
          calls.push({ call: prop, keys: args.slice(0, custom.get(prop)).map(String) });
          return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[prop]?.(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return proxy;
}

test('every source file that runs a script, transaction or pipeline is driven here', () => {
  const files = ['libs', 'services', 'tools'].flatMap(sourceFiles);
  const running = files.filter((f) => MULTI_KEY_CALL.test(readFileSync(path.join(ROOT, f), 'utf8')));
  expect(running.sort()).toEqual(Object.keys(DRIVERS).sort());
});

describe('each multi-key call takes keys of one slot', () => {
  let real: Redis;
  beforeAll(() => {
    real = createRedis(testUrls.redis);
  });
  afterAll(async () => {
    await real.quit();
  });

  for (const [file, driver] of Object.entries(DRIVERS)) {
    if (typeof driver !== 'function') continue;
    test(file, async () => {
      const calls: Recorded[] = [];
      await driver(recording(real, calls));
      expect(calls.length).toBeGreaterThan(0);
      const crossing = calls.filter((c) => new Set(c.keys.map((k) => calculateSlot(k))).size > 1);
      expect(crossing).toEqual([]);
    });
  }
});

test("BullMQ's prefix is one hash tag on a Cluster and unchanged on a single server", () => {
  const cluster = { isCluster: true } as Redis;
  const single = { isCluster: false } as Redis;
  expect(bullPrefix(cluster, 'svc')).toBe('{svc}');
  expect(bullPrefix(cluster, '{jobs}:svc')).toBe('{jobs}:svc');
  expect(bullPrefix(single, 'svc')).toBe('svc');
  // Every key BullMQ builds is `<prefix>:<queue>:<suffix>`: with the tag, all of one queue share a slot.
  const slots = ['wait', 'active', 'meta', 'id'].map((s) => calculateSlot(`{svc}:svc-jobs:${s}`));
  expect(new Set(slots).size).toBe(1);
});
