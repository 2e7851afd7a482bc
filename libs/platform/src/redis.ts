// Redis connections (ioredis) for replay sets, rate limits, caches, pub/sub and BullMQ, through one factory that
// speaks a single server, Sentinel or Cluster by configuration (CONTRACTS.md "Distributed engines"). Each call is
// bounded in time and every connection error is logged through pino as JSON (never ioredis's plain-text
// "Unhandled error event" on stderr).
import {
  type Callback,
  Cluster,
  type ClusterNode,
  type ClusterOptions,
  type Command,
  type RedisOptions as IoRedisOptions,
  Redis,
} from 'ioredis';
import { createLogger, type Logger } from './logger';
import type { Metrics } from './metrics';
import { countFailuresOn } from './redis-failures';

export { Redis };

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** How long a Redis call may take (see RELIABILITY.md). */
export interface RedisBounds {
  /** Opening a connection (REDIS_CONNECT_TIMEOUT_MS, default 2000). */
  connectTimeoutMs: number;
  /** One command, queued or sent, until its answer (REDIS_COMMAND_TIMEOUT_MS, default 1000). */
  commandTimeoutMs: number;
}

/** The defaults of REDIS_CONNECT_TIMEOUT_MS and REDIS_COMMAND_TIMEOUT_MS (config.ts reads the variables). */
export const DEFAULT_REDIS_BOUNDS: RedisBounds = { connectTimeoutMs: 2000, commandTimeoutMs: 1000 };

export interface RedisNode {
  host: string;
  port: number;
}

/** Credentials and TLS for Sentinel and Cluster (REDIS_USERNAME, REDIS_PASSWORD, REDIS_TLS); a secret. */
export interface RedisAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * Where Redis is: one server (REDIS_URL), a Sentinel-watched primary (REDIS_SENTINELS, REDIS_SENTINEL_MASTER) or a
 * Cluster (REDIS_CLUSTER_NODES, any few of its nodes: the rest are discovered).
 */
export type RedisTarget =
  | { mode: 'single'; url: string; auth?: RedisAuth }
  | { mode: 'sentinel'; sentinels: RedisNode[]; master: string; auth: RedisAuth }
  | { mode: 'cluster'; nodes: RedisNode[]; auth: RedisAuth };

export interface RedisOptions {
  lazy?: boolean;
  /**
   * Commands issued in the same tick go out in one write (ioredis auto-pipelining): fewer syscalls on the hot paths.
   * For command connections only; leave it off for subscribers.
   */
  autoPipelining?: boolean;
  bounds?: RedisBounds;
  /** Where connection errors go (at debug: the dependency watch logs the state changes). */
  logger?: Logger;
  /**
   * BullMQ's connection: no per-command timeout and unlimited retries, since its blocking pops wait on purpose
   * and BullMQ refuses a connection that gives up on a command.
   */
  blocking?: boolean;
  /**
   * An operator's one-off connection (the admin tool): no reconnection, no retries and no offline queue, so an
   * absent Redis fails the call within the connect timeout.
   */
  oneShot?: boolean;
  /** The host's metrics: a store's tolerated failure on this connection is counted there (redis-failures.ts). */
  metrics?: Metrics;
}

let fallbackLogger: Logger | undefined;

/** How soon a Sentinel connection that ioredis ended by itself connects again. */
const SENTINEL_RECONNECT_MS = 100;

/**
 * A connection through Sentinel that connects again when ioredis ends it by itself. ioredis's failover detector
 * closes the connector when Sentinel announces +switch-master; when that lands while the connection is asking a
 * sentinel for the primary (it retries while the old primary is gone), ioredis sets the status to `end` and never
 * reconnects (redis/ioredis#1683): a third of the connections in scripts/engines/sentinel-failover.test.ts stayed
 * "Connection is closed" after a SIGKILLed primary. Only quit() and disconnect() end it for good, and both close the
 * detector's connections.
 */
class SentinelRedis extends Redis {
  private closing = false;

  constructor(options: IoRedisOptions) {
    super(options);
    this.on('end', () => {
      // After quit() ioredis leaves the failover detector's sentinel connections open (they keep a process from
      // exiting); disconnect() is what closes them.
      if (this.closing) return super.disconnect();
      setTimeout(() => {
        if (!this.closing && this.status === 'end') this.connect().catch(() => undefined);
      }, SENTINEL_RECONNECT_MS).unref();
    });
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.closing = true;
    super.disconnect(reconnect);
  }

  /** ioredis duplicates as a plain Redis: BullMQ's blocking connections, duplicated, keep this behaviour too. */
  override duplicate(override?: Partial<IoRedisOptions>): Redis {
    return new SentinelRedis({ ...this.options, ...override });
  }

  override quit(callback?: Callback<'OK'>): ReturnType<Redis['quit']> {
    this.closing = true;
    return super.quit(callback);
  }
}

/**
 * A Cluster connection whose every command is bounded from the moment it is issued (REDIS_COMMAND_TIMEOUT_MS, as a
 * single server's: queued or sent). ioredis times a command only once it is written to a node: with every node
 * unreachable the Cluster keeps reconnecting and holds the commands in its own queue, untimed, so a request waited
 * as long as the outage lasted instead of answering 503 (scripts/engines/cluster-failover.test.ts, every node
 * SIGKILLed). A command that is timed here keeps its timer through redirections and node queues (ioredis sets a
 * command's timer once).
 */
class BoundedCluster extends Cluster {
  constructor(
    private readonly seeds: ClusterNode[],
    options: ClusterOptions,
    private readonly commandTimeoutMs: number | undefined,
  ) {
    super(seeds, options);
  }

  override sendCommand(
    command: Command,
    stream?: Parameters<Cluster['sendCommand']>[1],
    node?: Parameters<Cluster['sendCommand']>[2],
  ): unknown {
    if (this.commandTimeoutMs !== undefined) command.setTimeout(this.commandTimeoutMs);
    return super.sendCommand(command, stream, node);
  }

  /** ioredis duplicates as a plain Cluster: a duplicate keeps the bound. */
  override duplicate(overrideStartupNodes?: ClusterNode[], overrideOptions: ClusterOptions = {}): Cluster {
    return new BoundedCluster(
      overrideStartupNodes ?? this.seeds,
      { ...this.options, ...overrideOptions },
      this.commandTimeoutMs,
    );
  }
}

function authOptions(auth: RedisAuth | undefined) {
  return {
    ...(auth?.username ? { username: auth.username } : {}),
    ...(auth?.password ? { password: auth.password } : {}),
    ...(auth?.tls ? { tls: {} } : {}),
  };
}

/**
 * A command, subscriber or BullMQ connection to `target` (a REDIS_URL string is a single server). A Cluster comes
 * back typed as `Redis`: it answers the same commands, and every key a script or transaction touches together
 * shares a hash slot (`slotTag`, scripts/redis-slots.test.ts), so the callers need not tell them apart.
 */
export function createRedis(target: RedisTarget | string, opts: RedisOptions = {}): Redis {
  const to: RedisTarget = typeof target === 'string' ? { mode: 'single', url: target } : target;
  const bounds = opts.bounds ?? DEFAULT_REDIS_BOUNDS;
  const perConnection = {
    enableAutoPipelining: opts.autoPipelining ?? false,
    maxRetriesPerRequest: opts.blocking ? null : opts.oneShot ? 0 : 2,
    lazyConnect: opts.lazy ?? false,
    connectTimeout: bounds.connectTimeoutMs,
    ...(opts.blocking ? {} : { commandTimeout: bounds.commandTimeoutMs }),
  };
  const offline = { enableOfflineQueue: !opts.oneShot };
  const retry = opts.oneShot ? { retryStrategy: () => null } : {};
  let redis: Redis;
  if (to.mode === 'cluster') {
    const { enableAutoPipelining: _batched, lazyConnect, ...node } = perConnection;
    redis = new BoundedCluster(
      to.nodes,
      {
        // Never auto-pipelined on a Cluster: ioredis batches per node and does not follow a MOVED inside a batch
        // (redis/ioredis#2075), so after a planned CLUSTER FAILOVER the moved slot's commands kept failing with
        // MOVED (500s at the device host, scripts/engines/cluster-failover.test.ts). One command, one MOVED followed.
        enableAutoPipelining: false,
        lazyConnect,
        ...offline,
        ...(opts.oneShot ? { clusterRetryStrategy: () => null } : {}),
        // A failover moves slots: commands wait briefly for the new owner, then fail (503 upstream), never hang.
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
        slotsRefreshTimeout: bounds.connectTimeoutMs,
        redisOptions: { ...node, ...authOptions(to.auth) },
      },
      node.commandTimeout,
    ) as unknown as Redis;
  } else if (to.mode === 'sentinel') {
    redis = new SentinelRedis({
      ...perConnection,
      ...offline,
      ...retry,
      sentinels: to.sentinels,
      name: to.master,
      // Listens for Sentinel's +switch-master, so a promotion is followed at once rather than on the next error.
      failoverDetector: true,
      ...authOptions(to.auth),
      ...(to.auth.tls ? { enableTLSForSentinelMode: true } : {}),
    });
  } else {
    redis = new Redis(to.url, { ...perConnection, ...offline, ...retry, ...authOptions(to.auth) });
  }
  fallbackLogger ??= createLogger('redis');
  const logger = opts.logger ?? fallbackLogger;
  redis.on('error', (err: Error & { code?: string }) => {
    logger.debug({ dependency: 'redis', error: err.code ?? err.message }, 'redis connection error');
  });
  if (opts.metrics) countFailuresOn(redis, opts.metrics);
  return redis;
}

/** How long closeRedis waits for a connection to end before it stops waiting (ioredis destroys it by then). */
const CLOSE_BOUND_MS = 2000;

/**
 * Closes a connection for good, leaving nothing of it running. A connected one is sent QUIT (replies to commands
 * already sent still arrive); any other (connecting, or waiting to reconnect during an outage) is disconnected, since
 * QUIT would wait in the offline queue behind the commands there, fail at the command timeout and leave ioredis
 * reconnecting after its host said it stopped. Resolves once the connection has ended (its sockets, through
 * Sentinel its failover detector's too, closed or closing).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  let bound: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    redis.once('end', resolve);
    bound = setTimeout(resolve, CLOSE_BOUND_MS);
  });
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
  await ended;
  clearTimeout(bound);
}

/**
 * `text` as a hash tag on a Cluster (`{text}`: every key containing it lands in one slot), as is otherwise, so keys
 * on a single server or behind Sentinel keep the form they always had.
 */
export function slotTag(redis: Redis, text: string): string {
  return redis.isCluster ? `{${text}}` : text;
}

/**
 * BullMQ's key prefix on this connection: on a Cluster, one hash tag around the whole prefix (BullMQ's scripts
 * take several keys of one queue), unless the configured prefix already carries one.
 */
export function bullPrefix(redis: Redis, prefix: string): string {
  return redis.isCluster && !/\{[^}]+\}/.test(prefix) ? `{${prefix}}` : prefix;
}
