// Process lifecycle of a host and of the worker: listen (hosts), serve metrics, one start line, and shut down
// gracefully on SIGTERM/SIGINT (exit 0; a failure to start exits 1).
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { guardConnections } from './client-errors';
import { type Clock, systemClock } from './clock';
import { forkWorkers } from './cluster';
import type { Env, HostConfig, HostName, ProcessConfig } from './config';
import { createLogger, type Logger } from './logger';
import { type Metrics, serveMetrics } from './metrics';
import { startTelemetry } from './telemetry';
import { buildVersion } from './version';

export interface RunningHost {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on `port` (0 = any free port) and resolves once bound. A connection that goes wrong while a request on it
 * is handled is answered and closed as client-errors.ts says, never cut under the request.
 */
export function listen(app: RequestListener, port: number, host = '0.0.0.0'): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('request', guardConnections(server, app));
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

/**
 * Responses whose handler has not ended them yet. A client that drops its socket closes the response while the
 * handler may still await PostgreSQL or Redis; shutdown waits for those handlers before closing the pools under
 * them, so a drained host never fails a request half-way through. Once `drain()` is called, every response not
 * yet begun (in flight or arriving on a kept-alive connection) says `Connection: close`, so its socket ends with
 * it and no client keeps a closing host busy.
 */
export function trackHandlers(app: RequestListener): {
  app: RequestListener;
  drain(): void;
  settled(deadlineMs: number): Promise<boolean>;
} {
  const open = new Set<ServerResponse>();
  let draining = false;
  return {
    app: (req, res) => {
      open.add(res);
      res.once('finish', () => open.delete(res));
      if (draining) res.setHeader('connection', 'close');
      return app(req, res);
    },
    drain() {
      draining = true;
      for (const res of open) if (!res.headersSent) res.setHeader('connection', 'close');
    },
    async settled(deadlineMs) {
      // A duration of this process's own shutdown, polled with real timers: the monotonic clock, not the Clock.
      const deadline = performance.now() + deadlineMs;
      for (;;) {
        // writableEnded turns true when the handler calls end(), whether or not the socket is still there.
        for (const res of open) if (res.writableEnded) open.delete(res);
        if (open.size === 0) return true;
        if (performance.now() >= deadline) return false;
        await sleep(10);
      }
    },
  };
}

export async function runHost(opts: {
  name: string;
  app: RequestListener;
  port: number;
  /** Address to bind (BIND_HOST; default all interfaces). */
  bindHost?: string;
  logger: Logger;
  metrics?: Metrics;
  /** Where Prometheus metrics are served (METRICS_PORT); none when undefined. */
  metricsPort?: number;
  /** The address the metrics port listens on (METRICS_BIND_HOST; default loopback). */
  metricsBindHost?: string;
  onClose?: () => Promise<void>;
  /** How long shutdown waits for handlers still running after their clients left (SHUTDOWN_GRACE_MS). */
  graceMs?: number;
  /** The host's public URL, named in its one start-up line so a person knows where to go. */
  url?: string;
}): Promise<RunningHost> {
  const handlers = trackHandlers(opts.app);
  const server = await listen(handlers.app, opts.port, opts.bindHost);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const metricsServer =
    opts.metrics && opts.metricsPort !== undefined
      ? serveMetrics(opts.metrics, opts.metricsPort, opts.metricsBindHost)
      : undefined;
  opts.logger.info(
    // Which build this is (commit, build time), so an operator reading the log can tell a release apart.
    { port, url: opts.url, version: buildVersion() },
    opts.url ? `${opts.name} listening at ${opts.url}/` : `${opts.name} listening`,
  );
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      opts.logger.info('shutting down');
      // Stop accepting, end idle kept-alive sockets now, and let busy ones close after their response: waiting
      // for server.close() alone would wait on every client's keep-alive (65 s), past any orchestrator's patience.
      const stopped = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      handlers.drain();
      if (!(await handlers.settled(opts.graceMs ?? 10_000))) {
        opts.logger.warn('handlers still running at the end of the shutdown grace period');
      }
      server.closeAllConnections();
      await stopped;
      metricsServer?.close();
      await opts.onClose?.().catch((err: unknown) => opts.logger.error({ err }, 'error during shutdown'));
    })();
    return closing;
  };
  closeOnSignals(close, () => closing !== undefined);
  return { server, port, close };
}

/**
 * The stop of every process of the fleet (hosts and the worker): on SIGTERM or SIGINT, `close` (drain, then close the
 * dependencies) and exit 0. `on`, not `once`: systemd signals every process of the unit and a cluster primary
 * forwards the signal too, so a process may hear SIGTERM twice; a second signal, or one arriving while a close is
 * already under way (`closing()`), must not end it half-way through the drain.
 */
export function closeOnSignals(close: () => Promise<void>, closing: () => boolean): void {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      if (closing()) return;
      void close().then(() => process.exit(0));
    });
  }
}

/**
 * The start of every process entry: runs `main`; a failure to start prints its message on stderr (never a stack,
 * never a secret: a ConfigError names the variables, not their values) and exits 1.
 */
export function startProcess(what: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${what} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

/** What a host process opens before it serves: its logger and metrics, and one close() for all of it. */
export interface HostProcessDeps {
  logger: Logger;
  metrics?: Metrics;
  close(): Promise<void>;
}

/** A host process: its configuration schema, how it opens its dependencies, and its app. */
export interface HostProcess<C extends HostConfig, D extends HostProcessDeps> {
  name: HostName;
  /** Reads the environment through the host's schema; throws a ConfigError naming every bad variable. */
  config: (env: Env) => C;
  /** Opens the host's dependencies; `clock` is the process's one clock, handed to every part that reads time. */
  open: (config: C, clock: Clock) => D | Promise<D>;
  app: (deps: D) => RequestListener;
}

/**
 * A host's process entry, in named steps: read the configuration once, fork WEB_CONCURRENCY workers when asked,
 * start telemetry, open the dependencies on the one system clock, serve on the configured port and, on SIGTERM/SIGINT, drain, close them
 * and stop telemetry. A failure to start prints its message (never a stack, never a secret) and exits 1.
 */
export function serveHostProcess<C extends HostConfig, D extends HostProcessDeps>(
  host: HostProcess<C, D>,
  env: Env,
): void {
  const main = async () => {
    const config = host.config(env);
    if (forkWorkers(createLogger(host.name, { level: config.logLevel }), config.webConcurrency)) return;
    const telemetry = startTelemetry(host.name, config.tracing);
    const deps = await host.open(config, systemClock);
    await runHost({
      name: host.name,
      app: host.app(deps),
      port: config.port,
      bindHost: config.bindHost,
      logger: deps.logger,
      metrics: deps.metrics,
      metricsPort: config.metricsPort,
      metricsBindHost: config.metricsBindHost,
      graceMs: config.shutdownGraceMs,
      url: config.urls[config.name],
      onClose: async () => {
        await deps.close();
        await telemetry?.shutdown();
      },
    });
  };
  startProcess(`${host.name} host`, main);
}

/** What a background process (the worker) opens: its logger and metrics, and one close() for all of it. */
export interface BackgroundProcessDeps {
  logger: Logger;
  metrics: Metrics;
  close(): Promise<void>;
}

/** What a background process's work is once started: its start line's fields, and how it stops taking work. */
export interface StartedWork {
  /** Members of the one start line (`<name> started`) besides the build's version. */
  fields: Record<string, unknown>;
  /** Stops taking new work and waits for what is running (the worker drains its active jobs). */
  drain(): Promise<void>;
}

/** A process without a public port (the worker): its configuration schema, dependencies and work. */
export interface BackgroundProcess<C extends ProcessConfig, D extends BackgroundProcessDeps> {
  name: string;
  /** Reads the environment through the process's schema; throws a ConfigError naming every bad variable. */
  config: (env: Env) => C;
  /** Opens the dependencies on the process's one clock; `tracing` says whether spans are exported. */
  open: (config: C, clock: Clock, tracing: boolean) => D | Promise<D>;
  /** Starts the work (schedules, consumers). */
  start: (deps: D, config: C) => Promise<StartedWork>;
}

/**
 * A background process's entry, on the hosts' lifecycle: read the configuration once, start telemetry, open the
 * dependencies on the one system clock, serve metrics (and /healthz) on METRICS_PORT, start the work and say so in
 * one line naming the build; on SIGTERM/SIGINT drain the work, stop the metrics port, close the dependencies and stop
 * telemetry, say so, exit 0. A failure to start prints its message and exits 1.
 */
export function serveBackgroundProcess<C extends ProcessConfig, D extends BackgroundProcessDeps>(
  p: BackgroundProcess<C, D>,
  env: Env,
): void {
  const main = async () => {
    const config = p.config(env);
    const telemetry = startTelemetry(p.name, config.tracing);
    const deps = await p.open(config, systemClock, telemetry !== undefined);
    const metricsServer =
      config.metricsPort === undefined
        ? undefined
        : serveMetrics(deps.metrics, config.metricsPort, config.metricsBindHost);
    const work = await p.start(deps, config);
    deps.logger.info({ ...work.fields, version: buildVersion() }, `${p.name} started`);
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        deps.logger.info('shutting down: draining');
        await work.drain();
        const steps: (() => Promise<unknown>)[] = [
          () => new Promise<void>((r) => (metricsServer ? metricsServer.close(() => r()) : r())),
          () => deps.close(),
          async () => telemetry?.shutdown(),
        ];
        for (const step of steps)
          await step().catch((err: unknown) => deps.logger.error({ err }, 'error during shutdown'));
        deps.logger.info(`${p.name} stopped`);
      })();
      return closing;
    };
    closeOnSignals(close, () => closing !== undefined);
  };
  startProcess(p.name, main);
}
