// Session host process: {session_url}.
import { createLogger, forkWorkers, portFor, runHost, startTelemetry } from '@svc/platform';
import { createSessionApp } from './app';
import { openSessionDeps } from './deps';

async function main(): Promise<void> {
  if (forkWorkers(createLogger('session'))) return;
  const telemetry = startTelemetry('session');
  const deps = openSessionDeps();
  await runHost({
    name: 'session',
    app: createSessionApp(deps),
    port: portFor('session'),
    logger: deps.logger,
    metrics: deps.metrics,
    onClose: async () => {
      await deps.close();
      await telemetry?.shutdown();
    },
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`session host failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
