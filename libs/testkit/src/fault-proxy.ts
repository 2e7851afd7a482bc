// A TCP proxy for fault tests, put between a host and PostgreSQL or Redis: it passes bytes through, stalls (keeps
// every connection open and forwards nothing, as a frozen server or a partition does) or cuts (resets the open
// connections and refuses new ones, as a restart, failover or dropping load balancer does).
import net from 'node:net';

export type FaultMode = 'pass' | 'stall' | 'cut';

export interface FaultProxy {
  /** The port the proxy listens on (127.0.0.1), stable across cuts. */
  readonly port: number;
  readonly mode: FaultMode;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /** Forward again; stalled connections resume where they stopped (what a thawed server does). */
  pass(): Promise<void>;
  /** Hold every open and new connection; forward nothing either way. */
  stall(): void;
  /** Reset every open connection and refuse new ones until `pass()`. */
  cut(): Promise<void>;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Resets every connection, stops listening and waits until every socket it held has closed. */
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

/** A ceiling for the proxy's sockets to close after close(); they take a loop turn or two. */
const CLOSE_BOUND_MS = 10_000;

/**
 * Waits for every socket in `sockets` to close. One that does not would keep the test process from exiting (or leave
 * node spinning in its exit-time handle cleanup), so it fails here, naming how many, instead of silently after the
 * tests.
 */
async function allClosed(sockets: Set<net.Socket>): Promise<void> {
  if (sockets.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const closed = Promise.all([...sockets].map((s) => new Promise((r) => s.once('close', r))));
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`fault proxy: ${sockets.size} socket(s) still open ${CLOSE_BOUND_MS} ms after close()`),
        ),
      CLOSE_BOUND_MS,
    );
  });
  try {
    await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

function listenOn(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Ends the two sockets of a forwarded connection together once either errors or closes; `first` runs before and
 * may say the pair was dropped already (false), so a proxy's bookkeeping sees each connection end once.
 */
export function dropTogether(a: net.Socket, b: net.Socket, first: () => boolean = () => true): void {
  const drop = () => {
    if (!first()) return;
    a.destroy();
    b.destroy();
  };
  for (const s of [a, b]) {
    s.on('error', drop);
    s.on('close', drop);
  }
}

/** Starts a proxy to `target` (host and port) on a free port of 127.0.0.1, passing. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: FaultMode = 'pass';
  let accepted = 0;
  const pairs = new Set<Pair>();
  /** Every socket the proxy opened or accepted, until its 'close': close() waits for them all. */
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const hold = (p: Pair) => {
    p.client.pause();
    p.upstream.pause();
  };
  const release = (p: Pair) => {
    p.client.resume();
    p.upstream.resume();
  };
  // A connection whose client side the proxy has already ended (its upstream closed first) is closed, not reset:
  // libuv refuses to reset a socket while its shutdown is under way (EINVAL), and node (found on Node 20) then marks
  // the socket closing without closing it. Its handle stayed open, no 'close' ever came, and after the tests node spun in its
  // exit-time handle cleanup waiting for it. Such a connection is half closed already; closing it is what a server
  // that went down does.
  const resetOrClose = (s: net.Socket) => (s.writableEnded ? s.destroy() : s.resetAndDestroy());
  const reset = (p: Pair) => {
    resetOrClose(p.client);
    p.upstream.destroy();
    pairs.delete(p);
  };

  const onConnection = (client: net.Socket) => {
    accepted++;
    track(client);
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    // Plain forwarding rather than pipe(): pipe() resumes a paused source on 'drain', which would end a stall.
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    dropTogether(client, upstream, () => pairs.delete(pair));
    if (mode === 'stall') hold(pair);
  };

  let server = net.createServer(onConnection);
  await listenOn(server, 0);
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async pass() {
      if (mode === 'cut' && !server.listening) {
        server = net.createServer(onConnection);
        await listenOn(server, port);
      }
      mode = 'pass';
      for (const p of pairs) release(p);
    },
    stall() {
      mode = 'stall';
      for (const p of pairs) hold(p);
    },
    async cut() {
      mode = 'cut';
      // Closing the listener makes new connections fail with ECONNREFUSED, as a server that is down does.
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const p of [...pairs]) reset(p);
      await closed;
    },
    async close() {
      mode = 'cut';
      for (const p of [...pairs]) reset(p);
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
      await allClosed(sockets);
    },
  };
}
