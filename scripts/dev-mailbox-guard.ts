// The development mailbox's front door: every code the fleet mails is on maildev's page, and maildev answers any
// origin (`Access-Control-Allow-Origin: *`) under any Host. This guard listens on the mailbox's port on 127.0.0.1 and
// passes a request (or a WebSocket upgrade) to maildev only when its Host is this port on a loopback name (a page
// of another site whose name was rebound to 127.0.0.1 sends its own name) and any Origin it carries is the mailbox's
// own; it strips every CORS header from maildev's answers, so no other origin's script may read them.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface MailboxGuard {
  port: number;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A port free on 127.0.0.1 now (the caller listens on it next). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Why a request may not reach the mailbox, or undefined when it may. */
export function refusalOf(headers: http.IncomingHttpHeaders, port: number): string | undefined {
  const hosts = LOOPBACK_NAMES.map((name) => `${name}:${port}`);
  if (!hosts.includes(headers.host?.toLowerCase() ?? '')) {
    return 'the development mailbox answers only at localhost, 127.0.0.1 or [::1] with its port';
  }
  const origin = headers.origin?.toLowerCase();
  if (origin !== undefined && !hosts.some((host) => origin === `http://${host}`)) {
    return 'the development mailbox answers only its own pages';
  }
  return undefined;
}

function withoutCors(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('access-control-')) out[name] = value;
  }
  return out;
}

function refuse(res: http.ServerResponse, why: string): void {
  res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${why}\n`);
}

/** Listens on 127.0.0.1:`port`, passing what it admits to maildev's web listener on 127.0.0.1:`target`. */
export async function startMailboxGuard(opts: { port: number; target: number }): Promise<MailboxGuard> {
  const server = http.createServer((req, res) => {
    const why = refusalOf(req.headers, opts.port);
    if (why) return refuse(res, why);
    const upstream = http.request(
      { host: '127.0.0.1', port: opts.target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, withoutCors(answer.headers));
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('the development mailbox is not answering\n');
    });
    req.pipe(upstream);
  });
  // maildev's page takes its new mail over socket.io's WebSocket: the same checks, then the bytes both ways.
  const tunnels = new Set<net.Socket>();
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const why = refusalOf(req.headers, opts.port);
    if (why) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect(opts.target, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    const end = () => {
      upstream.destroy();
      socket.destroy();
      tunnels.delete(socket);
    };
    tunnels.add(socket);
    upstream.on('error', end);
    upstream.on('close', end);
    socket.on('error', end);
    socket.on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  return {
    port: opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of tunnels) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
