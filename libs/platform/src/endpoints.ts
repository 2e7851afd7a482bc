// The one way to declare an HTTP endpoint (method, literal path, body kind and zod schema, body limit, no-store,
// handler) and the one dispatcher that serves a host's table: JSON endpoints on node:http directly (Express costs
// ~5x more per request on the hot paths, BENCHMARKS.md), page endpoints mounted on Express by the adapter below;
// both with the same body reader (body.ts), error mapper (describeError), metrics hook and security headers.
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type {
  ErrorRequestHandler,
  Express,
  Request as ExpressRequest,
  Response as ExpressResponse,
  NextFunction,
} from 'express';
import proxyAddr from 'proxy-addr';
import type { ZodType } from 'zod';
import { type BodyRule, DEFAULT_BODY_LIMIT, readBody } from './body';
import { addCorsHeaders, answerPreflight, type Cors } from './cors';
import type { Reason } from './errors';
import { ServiceError } from './errors';
import {
  createHostApp,
  describeError,
  finishHostApp,
  type HostAppOptions,
  parseWith,
  SECURITY_HEADERS,
} from './http';
import { observeRequest } from './metrics';
import { type EndpointDoc, openApiDocument } from './openapi';
import { checkQuery } from './query';
import { nameServerSpan } from './telemetry';

/** Pages are GET and POST; JSON endpoints may also PATCH and DELETE (the management API). */
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * What an endpoint reads: `none` (no body is read), a JSON object (`json`) or a page form (`form`), checked by
 * `schema` (a failure is InvalidBody naming the fields, or the declared `refusal` reason) after the body rules of
 * body.ts with `limit` bytes (default 64 KiB; 16 KiB for forms).
 */
export type BodySpec<B> =
  | { kind: 'none' }
  | {
      kind: 'json' | 'form';
      schema: ZodType<B>;
      limit?: number;
      /** Forms: the most fields accepted. */
      maxFields?: number;
      /** Forms: refuse a repeated field (default) or keep its values as a string array (body.ts). */
      repeats?: 'refuse' | 'list';
      /** The reason a schema failure answers with, when the spec gives it one of its own (native /errand). */
      refusal?: Reason;
      /** JSON: a request without any body reads as `{}` (body.ts). */
      optional?: boolean;
    };

/** A JSON endpoint's request: the body and query already checked by the declared schemas. */
export interface EndpointRequest<B = unknown, A = undefined, Q = undefined> {
  /** Path parameters (`:name` segments), URI-decoded. */
  params: Record<string, string>;
  /** The query checked by the declared `query` schema; undefined (never parsed) without one. */
  query: Q;
  headers: IncomingHttpHeaders;
  body: B;
  /** The exact request-body bytes (for requestHash binding); empty for `none`. */
  rawBody: Buffer;
  /** The client address, honouring TRUST_PROXY exactly as Express's `req.ip` does. */
  ip: string;
  /** What the endpoint's `authenticate` step returned. */
  auth: A;
}

/** What `authenticate` sees: the request before its body and query are checked by the schemas. */
export type UncheckedRequest = Omit<EndpointRequest<unknown, undefined>, 'auth' | 'query'>;

export interface Answer {
  status?: number;
  /** A JSON value to serialise, or pre-serialised bytes in `raw` with their `contentType`. */
  json?: unknown;
  raw?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
}

interface Declared<B, Q> {
  method: Method;
  /** A literal path (`grep "'/refresh'"` finds the declaration); `:name` segments match one path segment. */
  path: string;
  body: BodySpec<B>;
  /**
   * The query string's parameters (query.ts): each a string, a repeated one the list of its values, checked after
   * the body's schema would be (a failure is InvalidBody naming them). Without it the URL is never parsed and a
   * page's `req.query` is empty.
   */
  query?: ZodType<Q>;
  /** Answers carry `Cache-Control: no-store` and `Pragma: no-cache` (issuance and credential-bearing answers). */
  noStore: boolean;
  /** What the host's OpenAPI document says beyond method, path and body: answers, reasons, auth (openapi.ts). */
  doc?: EndpointDoc;
}

/** A JSON endpoint, served by the fast dispatcher on node:http. */
export interface JsonEndpoint<B = unknown, A = undefined, Q = undefined> extends Declared<B, Q> {
  /**
   * Runs before the body schema, over the exact bytes (client-auth JWTs bound to the body): its refusal answers
   * before a malformed body's InvalidBody does, and its result is `req.auth`.
   */
  authenticate?: (req: UncheckedRequest) => Promise<A> | A;
  handle(req: EndpointRequest<B, A, Q>): Promise<Answer> | Answer;
  /**
   * Turns any failure of this endpoint (its body unreadable included) into the error it answers with, before the
   * error mapper: for an endpoint whose errors have their own family (device `/device-token`:
   * `{error: invalid_request}` for a bad body too).
   */
  mapError?(err: unknown): unknown;
  /**
   * CORS (cors.ts): without it the endpoint sends no CORS headers and its path answers no preflight. Only JSON
   * endpoints at literal paths declare it.
   */
  cors?: Cors;
}

/** A page's query without a declared schema: nothing (Express's own parse of the URL is never used). */
export type NoQuery = Record<string, never>;

/**
 * A page's request on Express, its body and query checked by the declared schemas (a helper that takes any page's
 * request leaves `Q` open: Express's query type, which every declared query fits).
 */
export type PageRequest<B = unknown, Q = ExpressRequest['query']> = ExpressRequest<
  Record<string, string>,
  unknown,
  B,
  Q
>;

/**
 * A browser page or a page script's JSON call (HTML, redirects, cookies), mounted on Express by the page adapter.
 */
export interface PageEndpoint<B = unknown, C = undefined, Q = NoQuery> extends Declared<B, Q> {
  /**
   * Runs after the body is read and before the declared schema checks it (`req.body` is the read, unchecked
   * body): loads what the page acts on and checks the post's CSRF token and Origin, so a forged post is refused
   * before a malformed one. Its result is the handler's third argument. When it has answered itself (a
   * redirect), the handler does not run.
   */
  open?: (req: PageRequest<Record<string, unknown>>, res: ExpressResponse) => Promise<C> | C;
  page(req: PageRequest<B, Q>, res: ExpressResponse, opened: C): Promise<void> | void;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds endpoints of every body type; each is checked where declared.
export type Endpoint = JsonEndpoint<any, any, any> | PageEndpoint<any, any, any>;

/**
 * Declares a JSON endpoint (infers the body and query types from their schemas and the auth type from
 * `authenticate`).
 */
export function endpoint<B = undefined, A = undefined, Q = undefined>(
  declared: JsonEndpoint<B, A, Q>,
): JsonEndpoint<B, A, Q> {
  return declared;
}

/** Declares a page endpoint (infers the body and query types from their schemas and the opened type from `open`). */
export function pageEndpoint<B = undefined, C = undefined, Q = NoQuery>(
  declared: PageEndpoint<B, C, Q>,
): PageEndpoint<B, C, Q> {
  return declared;
}

// biome-ignore lint/suspicious/noExplicitAny: narrows the table's union.
const isPage = (e: Endpoint): e is PageEndpoint<any, any, any> => 'page' in e;

function bodyRule(spec: BodySpec<unknown>): BodyRule | undefined {
  if (spec.kind === 'none') return undefined;
  const limit = spec.limit ?? (spec.kind === 'form' ? 16 * 1024 : DEFAULT_BODY_LIMIT);
  return {
    kind: spec.kind,
    limit,
    maxFields: spec.maxFields,
    repeats: spec.repeats,
    optional: spec.optional,
  };
}

function checkBody<B>(spec: BodySpec<B>, value: unknown): B {
  if (spec.kind === 'none') return undefined as B;
  if (!spec.refusal) return parseWith(spec.schema, value);
  const parsed = spec.schema.safeParse(value);
  if (!parsed.success) throw new ServiceError(spec.refusal);
  return parsed.data;
}

const NO_QUERY: NoQuery = Object.freeze({});

const NO_STORE: ReadonlyArray<readonly [string, string]> = [
  ['Cache-Control', 'no-store'],
  ['Pragma', 'no-cache'],
];

// ---- The page adapter (Express) ----

/**
 * Mounts page endpoints on Express: the same body reader and schema as the fast dispatcher, no-store when
 * declared, errors to `errors` (the pages' own error handler) or the host's error mapper.
 */
function mountPages(
  app: Express,
  // biome-ignore lint/suspicious/noExplicitAny: the table's pages, each checked where declared.
  pages: PageEndpoint<any, any, any>[],
  errors?: ErrorRequestHandler,
): void {
  for (const page of pages) {
    const rule = bodyRule(page.body);
    const handler = (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
      // Express's own query parse is never seen: the page has its declared query or none (an error page too).
      Object.defineProperty(req, 'query', { value: NO_QUERY, writable: true, configurable: true });
      const run = async () => {
        let read: Record<string, unknown> | undefined;
        if (rule) {
          const { raw, body } = await readBody(req, rule);
          req.rawBody = raw;
          req.body = body;
          read = body;
        }
        if (page.noStore) for (const [k, v] of NO_STORE) res.setHeader(k, v);
        const opened = page.open
          ? await page.open(req as PageRequest<Record<string, unknown>>, res)
          : undefined;
        if (res.headersSent) return;
        if (rule) req.body = checkBody(page.body, read);
        if (page.query) req.query = checkQuery(page.query, req.originalUrl);
        await page.page(req as PageRequest<unknown, unknown>, res, opened);
      };
      run().catch(next);
    };
    if (page.method === 'GET') app.get(page.path, handler);
    else if (page.method === 'POST') app.post(page.path, handler);
    else throw new Error(`a page is GET or POST: ${page.method} ${page.path}`);
  }
  if (errors) app.use(errors);
}

// ---- The fast dispatcher (node:http) ----

interface Compiled {
  endpoint: JsonEndpoint<unknown, unknown, unknown>;
  rule?: BodyRule;
  pattern?: RegExp;
  names: string[];
}

function compile(e: JsonEndpoint<unknown, unknown, unknown>): Compiled {
  const names: string[] = [];
  const rule = bodyRule(e.body);
  if (!e.path.includes(':')) return { endpoint: e, rule, names };
  const source = e.path
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(seg.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { endpoint: e, rule, names, pattern: new RegExp(`^${source}$`) };
}

/**
 * A path parameter decoded; one that does not decode (`%ZZ`, a lone surrogate) is kept as written, as query.ts keeps
 * such a query value, so the endpoint's own format check refuses it with the endpoint's documented reason rather
 * than the path falling through to a generic NotFound.
 */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function paramsOf(c: Compiled, path: string): Record<string, string> | undefined {
  const m = c.pattern!.exec(path);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  c.names.forEach((name, i) => {
    params[name] = decodeParam(m[i + 1]!);
  });
  return params;
}

function trustFunction(opts: HostAppOptions): (addr: string, i: number) => boolean {
  const trust = opts.trustProxy ?? false;
  if (trust === true) return () => true;
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_addr, i) => i < trust;
  return proxyAddr.compile(trust.split(',').map((v) => v.trim()));
}

function write(res: ServerResponse, status: number, headers: Record<string, string | number>, body?: Buffer) {
  for (const [k, v] of SECURITY_HEADERS) headers[k] = v;
  if (body) headers['Content-Length'] = body.length;
  res.writeHead(status, headers);
  res.end(body);
}

const JSON_TYPE = 'application/json; charset=utf-8';
const EMPTY = Buffer.alloc(0);

export interface HostTable {
  /** Every endpoint of the host: JSON endpoints on the fast dispatcher, pages through the Express adapter. */
  endpoints: Endpoint[];
  /** The pages' own error handler (HTML error pages), after the page endpoints. */
  pageErrors?: ErrorRequestHandler;
  /**
   * The host's own OpenAPI document, served at `GET /openapi.json` instead of the one built from the reasons table
   * (the management API answers RFC 9457 problem details, which that table does not describe).
   */
  openapi?: object;
}

/** The routes each host name's table declared in this process (the OpenAPI contract test reads them). */
const DECLARED = new Map<string, ReadonlyArray<{ method: Method; path: string }>>();

/** The `{method, path}` of every endpoint the last table served under host `name` declared. */
export function declaredRoutes(name: string): ReadonlyArray<{ method: Method; path: string }> {
  return DECLARED.get(name) ?? [];
}

/**
 * Serves a host's endpoint table: exact method and path match on the JSON endpoints first; everything else
 * (page endpoints, `/healthz`, `/readyz`, HEAD, trailing slashes, other cases, unknown paths: a JSON 404) goes to
 * the host's Express app.
 */
export function serveEndpoints(opts: HostAppOptions, table: HostTable): RequestListener {
  const app = createHostApp(opts);
  mountPages(app, table.endpoints.filter(isPage), table.pageErrors);
  finishHostApp(app, opts);

  const declared = new Set<string>();
  for (const e of table.endpoints) {
    const key = `${e.method} ${e.path}`;
    if (declared.has(key)) throw new Error(`endpoint declared twice: ${key}`);
    declared.add(key);
  }
  const exact = new Map<string, Compiled>();
  const patterns: Compiled[] = [];
  for (const e of table.endpoints) {
    if (isPage(e)) continue;
    const c = compile(e);
    if (c.pattern) patterns.push(c);
    else exact.set(`${e.method} ${e.path}`, c);
  }
  DECLARED.set(
    opts.name,
    table.endpoints.map((e) => ({ method: e.method, path: e.path })),
  );
  // GET /openapi.json: the document of this table, built once.
  const openapi = Buffer.from(
    JSON.stringify(
      table.openapi ??
        openApiDocument({
          name: opts.name,
          includeMessages: opts.includeMessages,
          endpoints: table.endpoints,
        }),
    ),
  );
  exact.set('GET /openapi.json', {
    endpoint: endpoint({
      method: 'GET',
      path: '/openapi.json',
      body: { kind: 'none' },
      noStore: false,
      handle: () => ({ raw: openapi, headers: { 'Cache-Control': 'public, max-age=300' } }),
    }) as JsonEndpoint<unknown, unknown, unknown>,
    names: [],
  });
  const trust = trustFunction(opts);
  // OPTIONS on a literal path whose endpoints declare CORS: the preflight (cors.ts); elsewhere OPTIONS stays a 404.
  const preflights = new Map<string, { cors: Cors; methods: Method[] }>();
  for (const c of exact.values()) {
    const { cors, path, method } = c.endpoint;
    if (!cors) continue;
    const known = preflights.get(path);
    if (known) known.methods.push(method);
    else preflights.set(path, { cors, methods: [method] });
  }

  async function serve(
    c: Compiled,
    params: Record<string, string>,
    req: IncomingMessage,
    res: ServerResponse,
  ) {
    const { endpoint: e, rule } = c;
    // Tracing off: one undefined check (telemetry.ts).
    nameServerSpan(e.method, e.path);
    const observe = observeRequest(opts.metrics);
    let status: number;
    let read: Awaited<ReturnType<typeof readBody>> | undefined;
    try {
      read = rule ? await readBody(req, rule) : undefined;
      const unchecked: UncheckedRequest = {
        params,
        headers: req.headers,
        body: read?.body,
        rawBody: read?.raw ?? EMPTY,
        ip: proxyAddr(req, trust),
      };
      const auth = e.authenticate ? await e.authenticate(unchecked) : undefined;
      const body = checkBody(e.body, unchecked.body);
      // Only an endpoint that declares a query pays for reading one (the hot endpoints declare none).
      const query = e.query ? checkQuery(e.query, req.url ?? '') : undefined;
      const answer = await e.handle({ ...unchecked, body, query, auth });
      status = answer.status ?? 200;
      const headers: Record<string, string | number> = { ...answer.headers };
      if (e.noStore) for (const [k, v] of NO_STORE) headers[k] = v;
      let bytes: Buffer | undefined;
      if (answer.raw !== undefined) {
        bytes = typeof answer.raw === 'string' ? Buffer.from(answer.raw) : answer.raw;
        headers['Content-Type'] = answer.contentType ?? JSON_TYPE;
      } else if (answer.json !== undefined) {
        bytes = Buffer.from(JSON.stringify(answer.json));
        headers['Content-Type'] = JSON_TYPE;
      }
      if (e.cors) await addCorsHeaders(e.cors, { headers: req.headers, body: read?.body }, headers);
      write(res, status, headers, bytes);
    } catch (err) {
      const answer = describeError(e.mapError ? e.mapError(err) : err, opts, {
        method: req.method ?? '',
        path: e.path,
        acceptLanguage: req.headers['accept-language'],
      });
      status = answer.status;
      const headers: Record<string, string | number> = { ...answer.headers };
      if (answer.body) headers['Content-Type'] = answer.contentType ?? JSON_TYPE;
      if (e.cors) await addCorsHeaders(e.cors, { headers: req.headers, body: read?.body }, headers);
      if (res.headersSent || res.destroyed) res.end();
      else write(res, status, headers, answer.body ? Buffer.from(JSON.stringify(answer.body)) : undefined);
    }
    observe(e.method, e.path, status);
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const hit = exact.get(`${req.method} ${path}`);
    const preflight = req.method === 'OPTIONS' ? preflights.get(path) : undefined;
    if (preflight) {
      void answerPreflight(preflight.cors, preflight.methods, req, res, SECURITY_HEADERS);
      return;
    }
    if (hit) {
      void serve(hit, {}, req, res);
      return;
    }
    for (const c of patterns) {
      if (c.endpoint.method !== req.method) continue;
      const params = paramsOf(c, path);
      if (params) {
        void serve(c, params, req, res);
        return;
      }
    }
    app(req, res);
  };
}
