// Process lifecycle of a host: listen, serve metrics, and shut down gracefully on SIGTERM/SIGINT.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from './logger';
import { type Metrics, serveMetrics } from './metrics';

export interface RunningHost {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0 = any free port) and resolves once bound. */
export function listen(
  app: RequestListener,
  port: number,
  host = process.env.BIND_HOST ?? '0.0.0.0',
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

export async function runHost(opts: {
  name: string;
  app: RequestListener;
  port: number;
  logger: Logger;
  metrics?: Metrics;
  onClose?: () => Promise<void>;
}): Promise<RunningHost> {
  const server = await listen(opts.app, opts.port);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const metricsPort = process.env.METRICS_PORT;
  const metricsServer =
    opts.metrics && metricsPort ? serveMetrics(opts.metrics, Number(metricsPort)) : undefined;
  opts.logger.info({ port }, `${opts.name} listening`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      opts.logger.info('shutting down');
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      metricsServer?.close();
      await opts.onClose?.().catch((err: unknown) => opts.logger.error({ err }, 'error during shutdown'));
    })();
    return closing;
  };
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      void close().then(() => process.exit(0));
    });
  }
  return { server, port, close };
}
