// The one way this package talks to a host: exact body bytes in, JSON out, failures as typed errors. Some
// failures are status-only with an empty body (spec, Errors), so a body is parsed only when there is one.
import { SigninApiError, SigninNetworkError } from './errors.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface Transport {
  fetch: FetchLike;
  /** Milliseconds before a call without an answer is abandoned (default 10 000). */
  timeoutMs: number;
}

export interface CallOptions {
  method?: 'GET' | 'POST';
  /** The exact bytes to send (already serialized: client-auth JWTs are bound to them). */
  body?: string;
  headers?: Record<string, string>;
  /** A name for errors, e.g. `POST /redeem`. */
  endpoint: string;
  signal?: AbortSignal;
}

export function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
}

function parseBody(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function retryAfterOf(res: Response): number | undefined {
  const raw = res.headers.get('retry-after');
  if (!raw) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Calls a host; resolves with the parsed JSON of a 2xx answer, throws SigninApiError or SigninNetworkError. */
export async function call<T>(transport: Transport, url: string, opts: CallOptions): Promise<T> {
  const timeout = AbortSignal.timeout(transport.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await transport.fetch(url, { method: opts.method ?? 'POST', headers, body: opts.body, signal });
    text = await res.text();
  } catch (cause) {
    throw new SigninNetworkError(opts.endpoint, { cause });
  }
  const body = parseBody(text);
  if (res.status < 200 || res.status > 299) {
    throw new SigninApiError(opts.endpoint, res.status, body, retryAfterOf(res));
  }
  return body as T;
}
