// Sends one request with exact bytes and headers (any encoding, chunked or not), as a hostile client would, and
// reports the answer, or that the server closed the connection instead of answering.
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  /** One buffer is sent with its Content-Length; an array is sent chunked, one write per element. */
  body?: Buffer | string | Array<Buffer | string>;
}

export interface RawAnswer {
  /** 0 when the connection closed before a complete answer. */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The socket error when there was no answer (a refused oversized body may be cut). */
  error?: string;
}

export function sendRaw(url: string, req: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunked = Array.isArray(req.body);
    const single = req.body === undefined || chunked ? undefined : Buffer.from(req.body as Buffer | string);
    const headers: Record<string, string | number> = { ...req.headers };
    if (single) headers['content-length'] = single.length;
    if (chunked) headers['transfer-encoding'] = 'chunked';
    let settled = false;
    const done = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const r = request(url, { method: req.method ?? 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', (err) =>
        done({ status: res.statusCode ?? 0, headers: res.headers, text: '', error: err.message }),
      );
    });
    r.on('error', (err) => done({ status: 0, headers: {}, text: '', error: err.message }));
    if (chunked) {
      for (const part of req.body as Array<Buffer | string>) {
        if (r.destroyed) break;
        r.write(part);
      }
      r.end();
    } else {
      r.end(single);
    }
  });
}

export interface RawExchange {
  /** Every byte the server sent until it closed the connection. */
  text: string;
  /** The status of each answer in `text`, in order. */
  statuses: number[];
}

/**
 * Writes `bytes` on one new connection in one write (a valid request followed by stray bytes, say) and collects
 * whatever the server sends until it closes the connection.
 */
export function exchangeRaw(url: string, bytes: string | Buffer): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ text, statuses });
    });
    socket.setTimeout(30_000, () => reject(new Error('the server kept the connection open for 30 s')));
  });
}

/** A request's bytes as a client writes them: request line, Host, the headers, Content-Length and the body. */
export function requestBytes(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = '',
): string {
  const u = new URL(url);
  const lines = [`${method} ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * A request whose headers parse and whose chunked body does not (`zz` is no chunk size): pipelined after a valid
 * request, it must not cost that request its answer (client-errors.ts).
 */
export function brokenChunkedBytes(url: string, method = 'POST', contentType = 'application/json'): string {
  const u = new URL(url);
  return `${method} ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`;
}
