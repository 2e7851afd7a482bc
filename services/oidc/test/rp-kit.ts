// Test support for relying parties: a callback server standing in for the client's web application (records
// every request it receives, query, fragment-less URL or form_post body), and the ID token hash the tests compute
// themselves (OIDC Core 3.1.3.6 / 3.3.2.11: left half of SHA-256 of the ASCII value, base64url).
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** Absolute URL as the server saw it (a fragment never reaches a server). */
  url: string;
  contentType?: string;
  body: string;
}

export interface RelyingPartyServer {
  origin: string;
  received: Received[];
  /** Waits until a request to `path` has arrived, and returns it. */
  next(path: string, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

// Requests a test has already taken with next().
const consumed = new WeakSet<Received>();

/** A local web application on 127.0.0.1 (named `hostname` in its URLs) answering every path with a small page. */
export async function startRelyingParty(hostname = 'localhost'): Promise<RelyingPartyServer> {
  const received: Received[] = [];
  const waiters: { path: string; resolve: (r: Received) => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = {
        method: req.method ?? 'GET',
        url: `${origin}${req.url ?? '/'}`,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      for (const w of [...waiters]) {
        if (new URL(entry.url).pathname === w.path) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(entry);
        }
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<!doctype html><title>Relying party</title><p>Back at the relying party.</p>');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://${hostname}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    next(path, timeoutMs = 60_000) {
      const already = received.find((r) => new URL(r.url).pathname === path && !consumed.has(r));
      if (already) {
        consumed.add(already);
        return Promise.resolve(already);
      }
      const waiting = new Promise<Received>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no request to ${path}`)), timeoutMs);
        timer.unref();
        waiters.push({
          path,
          resolve: (r) => {
            clearTimeout(timer);
            consumed.add(r);
            resolve(r);
          },
        });
      });
      // A test that fails before awaiting this (a page step timing out) must not leave a rejection nobody handles:
      // it surfaced seconds later in the next test, crashed it, and hung the file until its ceiling in CI.
      waiting.catch(() => {});
      return waiting;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
/** The `at_hash` / `c_hash` of a value for an RS256 ID token. */
export function idTokenHash(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** The form_post body as a fetch Request, the shape openid-client takes for a POSTed authorization response. */
export function formPostRequest(received: Received): Request {
  return new Request(received.url, {
    method: 'POST',
    headers: { 'content-type': received.contentType ?? 'application/x-www-form-urlencoded' },
    body: received.body,
  });
}
