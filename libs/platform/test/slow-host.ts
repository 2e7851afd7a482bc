// A host process for the signal tests: its one handler answers 'late' 1.5 s after it starts, and it prints
// {"port"} when listening and {"entered"} when a request is in its handler.
import { createLogger } from '../src/logger';
import { runHost } from '../src/run-host';

void runHost({
  name: 'slow-host',
  port: 0,
  logger: createLogger('slow-host', { level: 'silent' }),
  app: (_req, res) => {
    process.stdout.write(`${JSON.stringify({ entered: true })}\n`);
    setTimeout(() => res.end('late'), 1500);
  },
}).then((host) => process.stdout.write(`${JSON.stringify({ port: host.port })}\n`));
