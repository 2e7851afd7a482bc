// Express scaffolding every host shares (bodies are read by body.ts): security headers,
// health and readiness, request metrics, and the one place where errors become the spec's bodies.
import express, { type ErrorRequestHandler, type Express as ExpressApp, type Response } from 'express';
import type { ZodType } from 'zod';
import { type DependencyWatch, describeDependencyError, isDependencyFailure } from './dependencies';
import { invalidBody, OAuthError, ServiceError } from './errors';
import { localeFromAcceptLanguage } from './locale';
import type { Logger } from './logger';
import { type Metrics, observeRequest } from './metrics';
import { PROBLEM_TYPE, ProblemError } from './problem';
import { statusOf } from './reasons';
import { buildVersion } from './version';

declare global {
  namespace Express {
    interface Request {
      /** The exact request-body bytes (for requestHash binding). */
      rawBody?: Buffer;
    }
  }
}

export interface HostAppOptions {
  name: string;
  logger: Logger;
  metrics?: Metrics;
  /** Returns normally when the database, Redis and keys are ready; throws otherwise. */
  readiness?: () => Promise<void>;
  /** Told about every request that failed on PostgreSQL or Redis, so it can log the state change once. */
  dependencies?: DependencyWatch;
  /** Session API errors may carry a `message`; other hosts send `reason` alone. */
  includeMessages?: boolean;
  /** Express's `trust proxy` (the host's TRUST_PROXY, parsed at start-up); default false. */
  trustProxy?: boolean | number | string;
}

/** `/readyz` answers 503 after this, whatever the dependencies do (probes wait 1200 ms at most). */
export const READINESS_DEADLINE_MS = 1500;

class ReadinessTimeout extends Error {}

function withDeadline(check: () => Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new ReadinessTimeout('readiness deadline')), ms);
    check().then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** Sent on every response of every host. */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
];

export function createHostApp(opts: HostAppOptions): ExpressApp {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', opts.trustProxy ?? false);
  app.use((req, res, next) => {
    for (const [k, v] of SECURITY_HEADERS) res.setHeader(k, v);
    if (opts.metrics) {
      const observe = observeRequest(opts.metrics);
      res.on('finish', () =>
        observe(req.method, (req.route?.path as string | undefined) ?? 'unmatched', res.statusCode),
      );
    }
    next();
  });
  app.get('/healthz', (_req, res) => {
    // Which build answers (commit, build time): an operator can tell a half-rolled release apart.
    res.json({ status: 'ok', version: buildVersion() });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      if (opts.readiness) await withDeadline(opts.readiness, READINESS_DEADLINE_MS);
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'not_ready' });
    }
  });
  return app;
}

/** Finishes a host app: a JSON 404 for unknown paths and the error handler. Call after the routes. */
export function finishHostApp(app: ExpressApp, opts: HostAppOptions): void {
  app.use((_req, res) => {
    res.status(statusOf('NotFound')).json({ reason: 'NotFound' });
  });
  app.use(errorHandler(opts));
}

/** Parses with a zod schema; a failure is `InvalidBody` naming the offending fields (never their values). */
export function parseWith<T>(schema: ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = [...new Set(result.error.issues.map((i) => i.path.join('.') || '(body)'))].slice(0, 8);
  throw invalidBody(`invalid or missing fields: ${fields.join(', ')}`);
}

/** Sets the headers every issuance or credential-bearing response carries. */
export function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

/** What an error becomes on the wire: the one mapping both the Express stack and the fast routes use. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  /** Undefined for a status-only answer (no body, no Content-Type). */
  body?: Record<string, unknown>;
  /** The body's media type when not application/json (RFC 9457 problem details). */
  contentType?: string;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function describeError(
  err: unknown,
  opts: HostAppOptions,
  where: { method: string; path: string; acceptLanguage?: string },
): ErrorAnswer {
  if (err instanceof ServiceError) {
    const site = { host: opts.name, path: where.path };
    const { status } = err.answerAt(site);
    if (status === 503 && isDependencyFailure(err.cause)) opts.dependencies?.suspect();
    const locale = err.localized ? localeFromAcceptLanguage(where.acceptLanguage) : undefined;
    const body = err.body(locale, site);
    if (body && !opts.includeMessages) delete body.message;
    return { status, headers: { ...err.headers, ...NO_STORE }, body };
  }
  if (err instanceof ProblemError) {
    if (err.status === 503 && isDependencyFailure(err.cause)) opts.dependencies?.suspect();
    return {
      status: err.status,
      headers: { ...err.headers, ...NO_STORE },
      body: err.body(),
      contentType: PROBLEM_TYPE,
    };
  }
  if (err instanceof OAuthError) {
    return {
      status: err.status,
      headers: { ...err.headers, ...NO_STORE },
      body: { error: err.error, ...err.extra },
    };
  }
  if (isDependencyFailure(err)) return dependencyUnavailable(err, opts, where);
  opts.logger.error({ err, ...where }, 'unhandled error');
  return { status: 500, headers: {} };
}

function errorHandler(opts: HostAppOptions): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const answer = describeError(err, opts, {
      method: req.method,
      path: (req.route?.path as string | undefined) ?? req.path,
      acceptLanguage: req.headers['accept-language'],
    });
    res.status(answer.status).set(answer.headers);
    if (answer.body && answer.contentType) res.type(answer.contentType).send(JSON.stringify(answer.body));
    else if (answer.body) res.json(answer.body);
    else res.end();
  };
}

/**
 * A request that failed on PostgreSQL or Redis: the documented 503 with Retry-After. Logged at debug without a
 * stack (an outage fails every request; the dependency watch logs the state change once, at warn).
 */
function dependencyUnavailable(
  err: unknown,
  opts: HostAppOptions,
  where: { method: string; path: string },
): ErrorAnswer {
  opts.dependencies?.suspect();
  if (opts.logger.isLevelEnabled('debug')) {
    opts.logger.debug({ ...where, error: describeDependencyError(err) }, 'dependency unavailable');
  }
  return {
    status: statusOf('TemporarilyUnavailable'),
    headers: { ...NO_STORE, 'Retry-After': '1' },
    body: { reason: 'TemporarilyUnavailable' },
  };
}
