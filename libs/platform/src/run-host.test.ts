// Shutdown of a real host: pools close only after handlers whose clients already left have finished, and a
// repeated signal does not cut the drain short.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { createLogger } from './logger';
import { runHost } from './run-host';

const logger = createLogger('run-host-test');

/** A host whose one handler waits for `release` before answering, and records the order of events. */
async function slowHost(graceMs: number) {
  const events: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let entered!: () => void;
  const handlerEntered = new Promise<void>((r) => {
    entered = r;
  });
  const host = await runHost({
    name: 'run-host-test',
    port: 0,
    logger,
    graceMs,
    app: (_req, res) => {
      entered();
      void released.then(() => {
        events.push('handler ended');
        res.end('late');
      });
    },
    onClose: async () => {
      events.push('pools closed');
    },
  });
  return { host, events, release, handlerEntered };
}

/** Starts a request and drops its socket once the handler is running. */
async function abandonRequest(port: number, handlerEntered: Promise<void>): Promise<void> {
  const req = request({ port, host: '127.0.0.1', path: '/', method: 'GET' });
  req.on('error', () => {});
  req.end();
  await handlerEntered;
  req.destroy();
}

describe('runHost shutdown', () => {
  test('waits for a handler still running after its client left, then closes the pools', async () => {
    const { host, events, release, handlerEntered } = await slowHost(5_000);
    await abandonRequest(host.port, handlerEntered);
    const closed = host.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([]);
    release();
    await closed;
    expect(events).toEqual(['handler ended', 'pools closed']);
  });

  test('gives up on a handler that outlives the grace period', async () => {
    const { host, events, release, handlerEntered } = await slowHost(50);
    await abandonRequest(host.port, handlerEntered);
    await host.close();
    expect(events).toEqual(['pools closed']);
    release();
  });
});

describe('signals', () => {
  test('a kept-alive client and a second SIGTERM: the request in flight is answered, the process exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../test/slow-host.ts')], {
      cwd: path.resolve(__dirname, '../../..'),
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once('exit', (code, signal) => r([code, signal])),
    );
    const lines = readline.createInterface({ input: child.stdout! });
    const next = (key: string) =>
      new Promise<Record<string, number>>((resolve) => {
        const onLine = (line: string) => {
          const msg = JSON.parse(line) as Record<string, number>;
          if (key in msg) {
            lines.off('line', onLine);
            resolve(msg);
          }
        };
        lines.on('line', onLine);
      });
    const { port } = await next('port');
    const entered = next('entered');
    const answer = fetch(`http://127.0.0.1:${port}/`).then(async (res) => [
      res.status,
      res.headers.get('connection'),
      await res.text(),
    ]);
    await entered;
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    // The answer closes its connection, so the client's keep-alive does not hold the process open.
    expect(await answer).toEqual([200, 'close', 'late']);
    expect(await exited).toEqual([0, null]);
  }, 30_000);
});
