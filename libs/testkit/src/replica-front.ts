// A host's one public address in front of its replicas, as a load balancer is: a browser keeps one origin (its
// cookies, WebAuthn's origin, the pages' Origin checks) while the test chooses which replica answers next.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReplicaFront {
  /** http://localhost:PORT: the public URL the replicas are configured with. */
  url: string;
  /** Where requests go from now on (a replica's own address, e.g. a ChildHost's url). */
  use(target: string): void;
  /** How many requests each target has been sent so far. */
  sent: Map<string, number>;
  close(): Promise<void>;
}

/** Listens on a free port of 127.0.0.1 and forwards each request, as it came, to the target in use. */
export async function startReplicaFront(): Promise<ReplicaFront> {
  let target: string | undefined;
  const sent = new Map<string, number>();
  const agent = new http.Agent({ keepAlive: false });
  const server = http.createServer((req, res) => {
    if (!target) {
      res.writeHead(503).end('no replica chosen');
      return;
    }
    const to = new URL(req.url ?? '/', target);
    sent.set(target, (sent.get(target) ?? 0) + 1);
    const forwarded = http.request(to, { method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    forwarded.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    use(next) {
      target = next;
    },
    sent,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
