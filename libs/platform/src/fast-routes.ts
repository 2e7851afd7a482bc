// Hot endpoints served on node:http directly, ahead of Express: Express costs ~5x more per request than the
// handlers' own HTTP work on these machines (BENCHMARKS.md), which caps jwks, introspection and refresh. Same
// security headers, body rules, error bodies and metrics as the Express stack; every other path goes to Express.
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import proxyAddr from 'proxy-addr';
import { DEFAULT_BODY_LIMIT, readBody } from './body';
import { describeError, type HostAppOptions, SECURITY_HEADERS } from './http';

export interface FastRequest {
  /** Path parameters (`:name` segments), URI-decoded. */
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON object body (POST routes). */
  body: Record<string, unknown>;
  /** The exact request-body bytes (for requestHash binding). */
  rawBody: Buffer;
  /** The client address, honouring TRUST_PROXY exactly as Express's `req.ip` does. */
  ip: string;
}

export interface FastAnswer {
  status?: number;
  /** A JSON value to serialise, or pre-serialised bytes in `raw` with their `contentType`. */
  json?: unknown;
  raw?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Adds `Cache-Control: no-store` and `Pragma: no-cache` (credential-bearing answers). */
  noStore?: boolean;
}

export interface FastRoute {
  method: 'GET' | 'POST';
  /** An exact path; `:name` segments match one URI-decoded path segment. */
  path: string;
  /** POST body limit in bytes. */
  bodyLimit?: number;
  handle(req: FastRequest): Promise<FastAnswer> | FastAnswer;
  /**
   * Turns any failure of this route (its body unreadable included) into the error it answers with: an endpoint
   * whose errors have their own family (device `/device-token`: `{error: invalid_request}` for a bad body too).
   */
  mapError?(err: unknown): unknown;
}

interface CompiledRoute extends FastRoute {
  pattern?: RegExp;
  names: string[];
}

function compile(route: FastRoute): CompiledRoute {
  const names: string[] = [];
  if (!route.path.includes(':')) return { ...route, names };
  const source = route.path
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(seg.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { ...route, names, pattern: new RegExp(`^${source}$`) };
}

function match(route: CompiledRoute, path: string): Record<string, string> | undefined {
  if (!route.pattern) return route.path === path ? {} : undefined;
  const m = route.pattern.exec(path);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  try {
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]!);
    });
  } catch {
    return undefined;
  }
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
const EMPTY_BODY = { raw: Buffer.alloc(0), body: {} };

/**
 * One request listener for a host: the fast routes first, exact method and path; everything else (HEAD, other
 * paths, trailing slashes, other cases) goes to the Express app, which owns health, readiness and 404s.
 */
export function withFastRoutes(app: Express, opts: HostAppOptions, routes: FastRoute[]): RequestListener {
  const compiled = routes.map(compile);
  const trust = trustFunction(opts);
  const timer = opts.metrics?.httpDuration;

  async function serve(
    route: CompiledRoute,
    params: Record<string, string>,
    req: IncomingMessage,
    res: ServerResponse,
  ) {
    const path = route.path;
    const end = timer?.startTimer();
    let status: number;
    try {
      const { raw: rawBody, body } =
        route.method === 'POST'
          ? await readBody(req, { kind: 'json', limit: route.bodyLimit ?? DEFAULT_BODY_LIMIT })
          : EMPTY_BODY;
      const ip = proxyAddr(req, trust);
      const answer = await route.handle({ params, headers: req.headers, body, rawBody, ip });
      status = answer.status ?? 200;
      const headers: Record<string, string | number> = { ...answer.headers };
      if (answer.noStore) {
        headers['Cache-Control'] = 'no-store';
        headers.Pragma = 'no-cache';
      }
      let bytes: Buffer | undefined;
      if (answer.raw !== undefined) {
        bytes = typeof answer.raw === 'string' ? Buffer.from(answer.raw) : answer.raw;
        headers['Content-Type'] = answer.contentType ?? JSON_TYPE;
      } else if (answer.json !== undefined) {
        bytes = Buffer.from(JSON.stringify(answer.json));
        headers['Content-Type'] = JSON_TYPE;
      }
      write(res, status, headers, bytes);
    } catch (err) {
      const answer = describeError(route.mapError ? route.mapError(err) : err, opts, {
        method: req.method ?? '',
        path,
        acceptLanguage: req.headers['accept-language'],
      });
      status = answer.status;
      const headers: Record<string, string | number> = { ...answer.headers };
      if (answer.body) headers['Content-Type'] = JSON_TYPE;
      if (res.headersSent || res.destroyed) res.end();
      else write(res, status, headers, answer.body ? Buffer.from(JSON.stringify(answer.body)) : undefined);
    }
    end?.({ method: route.method, route: path, status: String(status) });
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    for (const route of compiled) {
      if (route.method !== req.method) continue;
      const params = match(route, path);
      if (params) {
        void serve(route, params, req, res);
        return;
      }
    }
    app(req, res);
  };
}
