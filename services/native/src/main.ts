// Process entry of the native host (`pnpm start:native`): open connections from the environment and serve.
import { portFor, runHost } from '@svc/platform';
import { createNativeApp } from './app';
import { openNativeDeps } from './deps';

async function main(): Promise<void> {
  const deps = await openNativeDeps();
  await runHost({
    name: 'native',
    app: createNativeApp(deps),
    port: portFor('native'),
    logger: deps.logger,
    metrics: deps.metrics,
    onClose: deps.close,
  });
}

main().catch((err: unknown) => {
  console.error('native host failed to start:', (err as Error).message);
  process.exit(1);
});
