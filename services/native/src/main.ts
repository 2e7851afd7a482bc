// Process entry of the native host (`pnpm start:native`): open connections from the environment and serve.
import { createLogger, forkWorkers, portFor, runHost, startTelemetry } from '@svc/platform';
import { createNativeApp } from './app';
import { openNativeDeps } from './deps';

async function main(): Promise<void> {
  if (forkWorkers(createLogger('native'))) return;
  const telemetry = startTelemetry('native');
  const deps = await openNativeDeps();
  await runHost({
    name: 'native',
    app: createNativeApp(deps),
    port: portFor('native'),
    logger: deps.logger,
    metrics: deps.metrics,
    onClose: async () => {
      await deps.close();
      await telemetry?.shutdown();
    },
  });
}

main().catch((err: unknown) => {
  console.error('native host failed to start:', (err as Error).message);
  process.exit(1);
});
