// Process entry of the connect host (`pnpm start:connect`): environment, connections, then listen on PORT.
import { portFor, runHost, startTelemetry } from '@svc/platform';
import { createConnectApp } from './app';
import { openConnectDeps } from './deps';

async function main(): Promise<void> {
  const telemetry = startTelemetry('connect');
  const deps = openConnectDeps();
  const app = createConnectApp(deps);
  await runHost({
    name: 'connect',
    app,
    port: portFor('connect'),
    logger: deps.logger,
    metrics: deps.metrics,
    async onClose() {
      await deps.close();
      await telemetry?.shutdown();
    },
  });
}

main().catch((err: unknown) => {
  console.error('connect failed to start', err instanceof Error ? err.message : err);
  process.exit(1);
});
