// RFC 8935 push over HTTP, safely (CONTRACTS "Events to applications", Safety): the target's host is resolved at
// delivery time and, in production, refused when any address is loopback, private, link-local or unique-local
// (unless private targets are allowed); the connection goes to the address that was checked (so a DNS answer that
// changes between check and connect cannot move it); no redirect is followed (a 3xx is a failed attempt); at most
// 1 KB of the answer is read; the whole exchange is bounded (5 s).
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Push, PushOutcome, PushTarget, ResolveHost } from '../domain/ports';
import { refusedAddresses, type TargetPolicy, urlRefusal } from '../domain/target-url';

export const PUSH_TIMEOUT_MS = 5000;
export const ANSWER_LIMIT_BYTES = 1024;

export interface PushOptions extends TargetPolicy {
  resolveHost: ResolveHost;
  timeoutMs?: number;
  /** Connections kept open per target host (keep-alive). */
  maxSockets?: number;
}

/** A lookup that answers with the one address already checked, whatever the name. */
function pinnedLookup(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

export function createPush(opts: PushOptions): { push: Push; close(): void } {
  const timeoutMs = opts.timeoutMs ?? PUSH_TIMEOUT_MS;
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 }),
  };

  function send(target: PushTarget, url: URL, address: string): Promise<PushOutcome> {
    const isHttps = url.protocol === 'https:';
    const request = isHttps ? https.request : http.request;
    return new Promise<PushOutcome>((resolve) => {
      let settled = false;
      const finish = (o: PushOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const req = request(url, {
        method: 'POST',
        agent: agents[isHttps ? 'https:' : 'http:'],
        lookup: pinnedLookup(address),
        headers: {
          'content-type': target.contentType,
          'content-length': Buffer.byteLength(target.body),
          accept: 'application/json',
        },
      });
      const timer = setTimeout(() => {
        finish({ delivered: false, reason: 'timeout', detail: `no answer within ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish({ delivered: false, reason: 'connection', detail: err.code ?? err.message }),
      );
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const text = Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_LIMIT_BYTES);
          if (status >= 200 && status < 300) finish({ delivered: true, status });
          else
            finish({
              delivered: false,
              reason: status >= 300 && status < 400 ? 'redirect' : 'http_status',
              status,
              detail: `${status}${text ? ` ${text.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
            });
        };
        res.on('data', (chunk: Buffer) => {
          if (size >= ANSWER_LIMIT_BYTES) return;
          chunks.push(chunk.subarray(0, ANSWER_LIMIT_BYTES - size));
          size += chunk.length;
          // Enough read: the rest of the answer is never read; the connection is not reused.
          if (size >= ANSWER_LIMIT_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      });
      req.end(target.body);
    });
  }

  async function push(target: PushTarget): Promise<PushOutcome> {
    if (urlRefusal(target.url, opts)) return { delivered: false, reason: 'invalid_target' };
    const url = new URL(target.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = await opts.resolveHost(host);
    } catch (err) {
      return {
        delivered: false,
        reason: 'dns',
        detail: (err as NodeJS.ErrnoException).code ?? 'lookup failed',
      };
    }
    if (addresses.length === 0) return { delivered: false, reason: 'dns', detail: 'no address' };
    const refused = refusedAddresses(addresses, opts);
    if (refused.length > 0) return { delivered: false, reason: 'private_target', detail: refused[0] };
    return send(target, url, addresses[0]!);
  }

  return {
    push,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
