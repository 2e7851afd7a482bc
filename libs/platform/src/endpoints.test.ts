// The endpoint table and its dispatcher against a real node:http server: JSON endpoints on the fast path, page
// endpoints through the Express adapter, one body reader, error mapper and metrics hook.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { endpoint, pageEndpoint, serveEndpoints } from './endpoints';
import { ServiceError } from './errors';
import type { HostAppOptions } from './http';
import { createLogger } from './logger';
import { createMetrics } from './metrics';
import { openApiDocument } from './openapi';
import { queryParams, queryText } from './query';

const logger = createLogger('endpoints-test');
const searchQuery = queryParams({
  q: queryText(8).describe('What to look for.'),
  page: z.enum(['1', '2']).optional(),
  tags: z.array(z.string()).optional(),
});
/** A JSON endpoint with a query: answers the checked query. */
const search = endpoint({
  method: 'GET',
  path: '/search',
  body: { kind: 'none' },
  query: searchQuery,
  noStore: false,
  handle: (req) => ({ json: req.query }),
});
const metrics = createMetrics('endpoints-test');
let server: Server;
let base: string;

function listenWith(trustProxy: HostAppOptions['trustProxy']): Promise<{ server: Server; base: string }> {
  const opts: HostAppOptions = { name: 'test', logger, includeMessages: true, trustProxy, metrics };
  const handler = serveEndpoints(opts, {
    endpoints: [
      endpoint({
        method: 'POST',
        path: '/echo',
        body: { kind: 'json', schema: z.strictObject({ value: z.string() }), limit: 64 },
        noStore: true,
        handle: (req) => ({ json: { value: req.body.value, ip: req.ip } }),
      }),
      endpoint({
        method: 'GET',
        path: '/things/:id/doc.json',
        body: { kind: 'none' },
        noStore: false,
        handle: (req) => {
          if (req.params.id === 'missing') throw new ServiceError('ApplicationNotFound');
          if (req.params.id === 'boom') throw new Error('internal detail');
          return {
            raw: `{"id":${JSON.stringify(req.params.id)}}`,
            headers: { 'Cache-Control': 'public, max-age=5' },
          };
        },
      }),
      endpoint({
        method: 'POST',
        path: '/guarded',
        body: { kind: 'json', schema: z.strictObject({ n: z.number() }) },
        noStore: true,
        authenticate: (req) => {
          if (req.headers.authorization !== 'Letmein') throw new ServiceError('ClientAuthDenied');
          return { bytes: req.rawBody.length };
        },
        handle: (req) => ({ json: { n: req.body.n, bytes: req.auth.bytes } }),
      }),
      endpoint({
        method: 'POST',
        path: '/token-only',
        body: { kind: 'json', schema: z.strictObject({ t: z.string() }), refusal: 'AccessTokenInvalid' },
        noStore: true,
        handle: (req) => ({ json: { t: req.body.t } }),
      }),
      search,
      pageEndpoint({
        method: 'GET',
        path: '/lookup',
        body: { kind: 'none' },
        query: searchQuery,
        noStore: false,
        page: (req, res) => {
          res.json(req.query);
        },
      }),
      pageEndpoint({
        method: 'GET',
        path: '/no-query',
        body: { kind: 'none' },
        noStore: false,
        page: (req, res) => {
          res.json({ query: req.query });
        },
      }),
      pageEndpoint({
        method: 'GET',
        path: '/slow/:id',
        body: { kind: 'none' },
        noStore: false,
        page: (req, res) => {
          res.json({ via: 'express', id: req.params.id });
        },
      }),
      pageEndpoint({
        method: 'POST',
        path: '/form',
        body: { kind: 'form', schema: z.strictObject({ name: z.string().max(5) }), limit: 128 },
        noStore: true,
        page: (req, res) => {
          if (req.body.name === 'oops') throw new Error('page failure');
          res.type('html').send(`<p>${req.body.name}</p>`);
        },
      }),
      pageEndpoint({
        method: 'POST',
        path: '/guarded-form/:target',
        body: { kind: 'form', schema: z.object({ token: z.string(), name: z.string().max(5) }) },
        noStore: false,
        // Before the schema: the unchecked fields; a wrong token is refused before a bad name.
        open: (req, res) => {
          if (req.params.target === 'elsewhere') return void res.redirect(303, '/elsewhere');
          if (req.body.token !== 'right') throw new ServiceError('ClientAuthDenied');
          return { target: req.params.target };
        },
        page: (req, res, opened) => {
          res.json({ target: opened?.target, name: req.body.name });
        },
      }),
    ],
    pageErrors: (err, _req, res, _next) => {
      if (err instanceof ServiceError && err.reason === 'ClientAuthDenied') {
        return void res.status(403).type('html').send('<p>forbidden</p>');
      }
      if (err instanceof ServiceError && err.reason === 'InvalidBody') {
        return void res.status(400).type('html').send('<p>bad request</p>');
      }
      res.status(500).type('html').send('<p>page error</p>');
    },
  });
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

describe('serveEndpoints', () => {
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

  it.each([
    ['JSON', '/search'],
    ['page', '/lookup'],
  ])(
    '%s: parses the declared query once, refusing repeated, over-long and mistyped values',
    async (_kind, path) => {
      const ok = await fetch(`${base}${path}?q=a+b&tags=x&tags=y&unknown=1&unknown=2`);
      expect([ok.status, await ok.json()]).toEqual([200, { q: 'a b', tags: ['x', 'y'] }]);
      for (const [query, name] of [
        ['q=a&q=b', 'q'],
        [`q=${'x'.repeat(9)}`, 'q'],
        ['q=a&page=3', 'page'],
        ['q=a%00b', 'q'],
        ['page=1', 'q'],
      ]) {
        const res = await fetch(`${base}${path}?${query}`);
        expect(res.status).toBe(400);
        // The JSON endpoint's reason body; the page's error handler renders the same InvalidBody as its page.
        if (path === '/search') {
          expect(await res.json()).toEqual({
            reason: 'InvalidBody',
            message: `invalid query parameters: ${name}`,
          });
        } else expect(await res.text()).toBe('<p>bad request</p>');
      }
    },
  );

  it("gives a page without a query schema no query at all (Express's parse unseen)", async () => {
    expect(await (await fetch(`${base}/no-query?a=1`)).json()).toEqual({ query: {} });
  });

  it('documents the query parameters from the schema, and InvalidBody for a refused one', () => {
    const doc = openApiDocument({
      name: 'test',
      endpoints: [search],
    }) as { paths: Record<string, { get: { parameters: unknown[]; responses: Record<string, unknown> } }> };
    const op = doc.paths['/search']!.get;
    expect(op.parameters).toEqual([
      {
        name: 'q',
        in: 'query',
        required: true,
        description: 'What to look for.',
        schema: { type: 'string', maxLength: 8 },
      },
      { name: 'page', in: 'query', required: false, schema: { type: 'string', enum: ['1', '2'] } },
      { name: 'tags', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } } },
    ]);
    expect(JSON.stringify(op.responses['400'])).toContain('InvalidBody');
  });

  it('decodes path parameters and serves pre-serialised bodies', async () => {
    const res = await fetch(`${base}/things/a%20b/doc.json?ignored=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'a b' });
    expect(res.headers.get('cache-control')).toBe('public, max-age=5');
    // One that does not decode reaches its endpoint as written, for the endpoint's own check to refuse.
    const undecodable = await fetch(`${base}/things/%ZZ/doc.json`);
    expect([undecodable.status, await undecodable.json()]).toEqual([200, { id: '%ZZ' }]);
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

  it('leaves every other method and path to Express, pages included', async () => {
    expect(await (await fetch(`${base}/slow/7`)).json()).toEqual({ via: 'express', id: '7' });
    expect((await fetch(`${base}/echo`)).status).toBe(404);
    expect((await post('/echo/', '{"value":"x"}')).status).toBe(404);
    expect((await post('/ECHO', '{"value":"x"}')).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('runs authenticate over the exact bytes before the schema, so its refusal wins', async () => {
    const refused = await post('/guarded', '{"n":"not a number"}');
    expect([refused.status, await refused.text()]).toEqual([401, '']);
    const bad = await post('/guarded', '{"n":"x"}', { authorization: 'Letmein' });
    expect([bad.status, ((await bad.json()) as { reason: string }).reason]).toEqual([400, 'InvalidBody']);
    const ok = await post('/guarded', '{"n":7}', { authorization: 'Letmein' });
    expect(await ok.json()).toEqual({ n: 7, bytes: 7 });
  });

  it('answers a schema failure with the declared refusal reason and its table status', async () => {
    const res = await post('/token-only', '{"t":1}');
    expect([res.status, ((await res.json()) as { reason: string }).reason]).toEqual([
      401,
      'AccessTokenInvalid',
    ]);
    // The body rules still answer InvalidBody before the schema.
    const notJson = await post('/token-only', '{');
    expect([notJson.status, ((await notJson.json()) as { reason: string }).reason]).toEqual([
      400,
      'InvalidBody',
    ]);
  });

  it('mounts page endpoints with the same body reader, schema and no-store, and their error handler', async () => {
    const form = (body: string) =>
      fetch(`${base}/form`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const ok = await form('name=ab+c');
    expect([ok.status, await ok.text(), ok.headers.get('cache-control')]).toEqual([
      200,
      '<p>ab c</p>',
      'no-store',
    ]);
    expect(ok.headers.get('x-frame-options')).toBe('DENY');
    const invalid = await form('name=toolong');
    expect([invalid.status, await invalid.text()]).toEqual([400, '<p>bad request</p>']);
    const failing = await form('name=oops');
    expect([failing.status, await failing.text()]).toEqual([500, '<p>page error</p>']);
  });

  it("runs a page's open before its schema: a forged post is refused before a malformed one", async () => {
    const form = (target: string, body: string) =>
      fetch(`${base}/guarded-form/${target}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
    const ok = await form('t1', 'token=right&name=ab');
    expect([ok.status, await ok.json()]).toEqual([200, { target: 't1', name: 'ab' }]);
    const forged = await form('t1', 'token=wrong&name=toolong');
    expect([forged.status, await forged.text()]).toEqual([403, '<p>forbidden</p>']);
    const malformed = await form('t1', 'token=right&name=toolong');
    expect([malformed.status, await malformed.text()]).toEqual([400, '<p>bad request</p>']);
    // open answered (a redirect): the schema and the handler do not run.
    const answered = await form('elsewhere', 'name=toolong');
    expect([answered.status, answered.headers.get('location')]).toEqual([303, '/elsewhere']);
  });

  it('observes every request once, labelled by the declared path, on both stacks', async () => {
    await post('/echo', JSON.stringify({ value: 'm' }));
    await fetch(`${base}/slow/9`);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(
      /http_request_duration_seconds_count\{service="endpoints-test",method="POST",route="\/echo",status="200"\} \d+/,
    );
    expect(text).toMatch(
      /http_request_duration_seconds_count\{service="endpoints-test",method="GET",route="\/slow\/:id",status="200"\} \d+/,
    );
  });

  it('refuses a table that declares one method and path twice', () => {
    const twice = () =>
      endpoint({ method: 'GET', path: '/x/:a', body: { kind: 'none' }, noStore: false, handle: () => ({}) });
    expect(() => serveEndpoints({ name: 't', logger }, { endpoints: [twice(), twice()] })).toThrow(
      'endpoint declared twice: GET /x/:a',
    );
    const page = () =>
      pageEndpoint({
        method: 'POST',
        path: '/p',
        body: { kind: 'none' },
        noStore: false,
        page: () => undefined,
      });
    expect(() => serveEndpoints({ name: 't', logger }, { endpoints: [page(), page()] })).toThrow(
      'endpoint declared twice: POST /p',
    );
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
