// A connection that goes bad under a request (client-errors.ts) through listen(): a request that fully arrived is
// answered and the connection closed after it, never cut with a 400 while its handler runs on; bytes that are
// bad on their own still get Node's 400; a handler whose client left still reads the client's address.
import { once } from 'node:events';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { readBody } from './body';
import { listen } from './run-host';

/** Writes `bytes` in one write on a new connection; everything the server sends until it closes. */
function converse(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function serve(app: RequestListener): Promise<number> {
  server = await listen(app, 0, '127.0.0.1');
  return (server.address() as { port: number }).port;
}

/** A handler that reads its body, lets the loop turn (the parser has seen every byte by then) and answers. */
function acting(acted: string[]) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const read = await readBody(req, { kind: 'json', limit: 1024 }).catch(() => undefined);
    if (!read) {
      acted.push('refused');
      return;
    }
    const { body } = read;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
    acted.push(JSON.stringify(body));
    res.setHeader('content-type', 'application/json');
    res.end('{"done":true}');
  };
}

const post = (body: string) =>
  `POST /act HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('a connection that goes bad under a request', () => {
  test('a complete request followed by stray bytes gets its answer, then the connection closes', async () => {
    const acted: string[] = [];
    const port = await serve(acting(acted));
    const text = await converse(port, `${post('{"n":1}')}1\r\n\r\n`);
    expect(acted).toEqual(['{"n":1}']);
    // Before: only "400 Bad Request", while the handler ran on and acted.
    expect(statusesOf(text)).toEqual([200]);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toMatch(/\{"done":true\}$/);
  });

  test('stray bytes after two pipelined requests: both are answered, in order, then the close', async () => {
    const acted: string[] = [];
    const port = await serve(acting(acted));
    const text = await converse(port, `${post('{"n":1}')}${post('{"n":2}')}\x00\x01junk\r\n\r\n`);
    expect(acted).toEqual(['{"n":1}', '{"n":2}']);
    expect(statusesOf(text)).toEqual([200, 200]);
  });

  test('a complete request, then one whose chunked body breaks: the first is answered, then the close', async () => {
    const acted: string[] = [];
    const port = await serve(acting(acted));
    const broken =
      'POST /act HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n';
    const text = await converse(port, `${post('{"n":1}')}${post('{"n":2}')}${broken}`);
    // Before: only "400 Bad Request", while both handlers ran on and acted.
    expect(statusesOf(text)).toEqual([200, 200]);
    expect(text).toMatch(/\r\nconnection: close\r\n[\s\S]*\{"done":true\}$/i);
    while (acted.length < 3) await new Promise((r) => setTimeout(r, 10));
    expect(acted).toEqual(['{"n":1}', '{"n":2}', 'refused']);
  });

  test('bad bytes inside a request body: 400, and the handler never acts', async () => {
    const acted: string[] = [];
    const port = await serve(acting(acted));
    const chunked =
      'POST /act HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"n\r\nzz\r\n';
    const text = await converse(port, chunked);
    expect(statusesOf(text)).toEqual([400]);
    while (acted.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(acted).toEqual(['refused']);
  });

  test('bad bytes with no request in flight: 400', async () => {
    const port = await serve(acting([]));
    expect(statusesOf(await converse(port, '1\r\n\r\n'))).toEqual([400]);
  });
});

describe('the client address of a request whose client left', () => {
  test('is the address the connection had, not undefined', async () => {
    const port = await serve(() => {});
    const arrived = once(server as Server, 'request') as Promise<[IncomingMessage, ServerResponse]>;
    const socket = connect({ host: '127.0.0.1', port }, () =>
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    socket.on('error', () => {});
    const [req, res] = await arrived;
    // Read only once the client is gone, as a handler awaiting PostgreSQL before its rate limit would.
    socket.destroy();
    await once(res, 'close');
    expect(req.socket.remoteAddress).toBe('127.0.0.1');
  });
});
