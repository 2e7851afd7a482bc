// A stand-in RFC 8935 receiver on loopback for the events tests: records every POST (when, headers, body) and
// answers as the test says (202 by default; any status, a redirect, or held open until released).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait';

export interface ReceivedPush {
  /** ms since the epoch when the request's body was complete. */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How to answer one push: a status (with headers and body), or hold the request open. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | 'hold';

export interface EventReceiver {
  url: string;
  port: number;
  received: ReceivedPush[];
  /** Sets how the next pushes are answered (by their index among all received). */
  answer(by: (push: ReceivedPush, index: number) => ReceiverAnswer): void;
  /** Waits until `n` pushes arrived; returns them. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  /** Answers every held request with 202. */
  release(): void;
  close(): Promise<void>;
}

export async function startEventReceiver(opts: { port?: number } = {}): Promise<EventReceiver> {
  const received: ReceivedPush[] = [];
  const held: ServerResponse[] = [];
  let answerOf: (push: ReceivedPush, index: number) => ReceiverAnswer = () => ({ status: 202 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const push: ReceivedPush = {
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(push);
      const a = answerOf(push, received.length - 1);
      if (a === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(a.status, a.headers);
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/events`,
    port,
    received,
    answer(by) {
      answerOf = by;
    },
    async waitFor(n, timeoutMs = 20_000) {
      await waitUntil(async () => received.length >= n, timeoutMs, 20);
      return received.slice(0, n);
    },
    release() {
      for (const res of held.splice(0)) if (!res.writableEnded) res.writeHead(202).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
