// The fast-route layer against a real node:http server with an Express app behind it.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { ServiceError } from './errors';
import { withFastRoutes } from './fast-routes';
import { createHostApp, finishHostApp, type HostAppOptions, parseWith } from './http';
import { createLogger } from './logger';

const logger = createLogger('fast-routes-test');
let server: Server;
let base: string;

function listenWith(trustProxy: HostAppOptions['trustProxy']): Promise<{ server: Server; base: string }> {
  const opts: HostAppOptions = { name: 'test', logger, includeMessages: true, trustProxy };
  const app = createHostApp(opts);
  app.get('/slow/:id', (req, res) => {
    res.json({ via: 'express', id: req.params.id });
  });
  finishHostApp(app, opts);
  const handler = withFastRoutes(app, opts, [
    {
      method: 'POST',
      path: '/echo',
      bodyLimit: 64,
      handle: (req) => ({
        json: { value: parseWith(z.strictObject({ value: z.string() }), req.body).value, ip: req.ip },
        noStore: true,
      }),
    },
    {
      method: 'GET',
      path: '/things/:id/doc.json',
      handle: (req) => {
        if (req.params.id === 'missing') throw new ServiceError('ApplicationNotFound', 404);
        if (req.params.id === 'boom') throw new Error('internal detail');
        return {
          raw: `{"id":${JSON.stringify(req.params.id)}}`,
          headers: { 'Cache-Control': 'public, max-age=5' },
        };
      },
    },
  ]);
  const s = createServer(handler);
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () =>
      resolve({ server: s, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` }),
    ),
  );
}

beforeAll(async () => {
  ({ server, base } = await listenWith(false));
});
const shut = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });
afterAll(() => shut(server));

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });

describe('fast routes', () => {
  it('answers JSON with the security and no-store headers', async () => {
    const res = await post('/echo', JSON.stringify({ value: 'hi' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ value: 'hi', ip: '127.0.0.1' });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('applies the shared body rules with their InvalidBody answers', async () => {
    const cases: Array<[string | Buffer, Record<string, string>, number, string | undefined]> = [
      ['', {}, 400, 'the request body is empty'],
      ['{"value":', {}, 400, 'the request body is not valid JSON'],
      ['[1]', {}, 400, 'the request body must be a JSON object'],
      ['{"value":"x"}', { 'content-type': 'text/plain' }, 400, 'Content-Type must be application/json'],
      ['{"value":1}', {}, 400, 'invalid or missing fields: value'],
      ['{"value":"x","extra":1}', {}, 400, undefined],
      [JSON.stringify({ value: 'x'.repeat(100) }), {}, 413, 'body too large'],
      [gzipSync('{"value":"x"}'), { 'content-encoding': 'gzip' }, 400, undefined],
    ];
    for (const [body, headers, status, message] of cases) {
      const res = await post('/echo', body, headers);
      const json = (await res.json()) as { reason: string; message?: string };
      expect([res.status, json.reason]).toEqual([status, 'InvalidBody']);
      if (message) expect(json.message).toBe(message);
    }
  });

  it('closes the connection after refusing an oversized body it did not read', async () => {
    const res = await post('/echo', JSON.stringify({ value: 'x'.repeat(1000) }));
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
  });

  it('decodes path parameters and serves pre-serialised bodies', async () => {
    const res = await fetch(`${base}/things/a%20b/doc.json?ignored=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'a b' });
    expect(res.headers.get('cache-control')).toBe('public, max-age=5');
  });

  it('maps a ServiceError to its body and anything unexpected to a bare 500', async () => {
    const missing = await fetch(`${base}/things/missing/doc.json`);
    expect([missing.status, ((await missing.json()) as { reason: string }).reason]).toEqual([
      404,
      'ApplicationNotFound',
    ]);
    const boom = await fetch(`${base}/things/boom/doc.json`);
    expect(boom.status).toBe(500);
    expect(await boom.text()).toBe('');
  });

  it('leaves every other method and path to Express', async () => {
    expect(await (await fetch(`${base}/slow/7`)).json()).toEqual({ via: 'express', id: '7' });
    expect((await fetch(`${base}/echo`)).status).toBe(404);
    expect((await post('/echo/', '{"value":"x"}')).status).toBe(404);
    expect((await post('/ECHO', '{"value":"x"}')).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('reads the client address behind trusted proxies as Express does', async () => {
    const trusted = await listenWith('loopback');
    try {
      const ip = await new Promise<string>((resolve, reject) => {
        const req = request(
          `${trusted.base}/echo`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
          },
          (res) => {
            let data = '';
            res.on('data', (c) => {
              data += c;
            });
            res.on('end', () => resolve((JSON.parse(data) as { ip: string }).ip));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ value: 'x' }));
      });
      expect(ip).toBe('203.0.113.9');
    } finally {
      await shut(trusted.server);
    }
  });
});
