// CORS (Fetch standard, "CORS protocol") for the JSON endpoints that declare it, and for no other: an endpoint
// open to any origin (discovery, a key set: public, credential-free documents) or one whose answers only the
// origins registered for the presenting client may read (the OIDC host's /token, /userinfo, revocation). CORS is
// not authentication: a request from an origin that may not read it is answered exactly as before, without CORS
// headers, and the browser keeps the answer from the page. Credentials (cookies) are never allowed.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a preflight allows besides the method: the headers a token request or a Bearer call sends. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, DPoP';
/** How long a browser may reuse a preflight's answer (seconds); browsers cap it lower (Chromium: 7200). */
const PREFLIGHT_MAX_AGE = '600';

/** The request as a CORS decision sees it: headers and the read, unchecked body (a form or JSON object). */
export interface CorsRequest {
  headers: IncomingMessage['headers'];
  body: unknown;
}

export type Cors =
  /** Any origin may read the answers (`Access-Control-Allow-Origin: *`). */
  | { kind: 'public' }
  | {
      kind: 'registered';
      /** Whether `origin` is registered for the client this request presents (never throws for a stranger). */
      allows(origin: string, req: CorsRequest): Promise<boolean>;
      /**
       * Whether a preflight from `origin` is answered: a preflight presents no client (no credentials, no body), so
       * the origin must be registered for some active client; the actual request is then held to its own.
       */
      preflight(origin: string): Promise<boolean>;
    };

/** The CORS headers of an answer to `req` on an endpoint declaring `cors`, added to `headers`. */
export async function addCorsHeaders(
  cors: Cors,
  req: CorsRequest,
  headers: Record<string, string | number>,
): Promise<void> {
  if (cors.kind === 'public') {
    headers['Access-Control-Allow-Origin'] = '*';
    return;
  }
  // The answer differs by Origin, so caches keep one per origin (with what the endpoint already varies on).
  const vary = headers.Vary;
  headers.Vary = vary ? `${vary}, Origin` : 'Origin';
  const origin = originOf(req.headers);
  if (origin === undefined) return;
  // A lookup that fails (the database, a malformed body) allows nothing: the answer goes out without CORS headers.
  const allowed = await cors.allows(origin, req).catch(() => false);
  if (allowed) headers['Access-Control-Allow-Origin'] = origin;
}

/**
 * Answers a preflight (`OPTIONS` on a path whose endpoints declare CORS): 204, and the CORS headers only for an
 * origin that may send `methods`; a stranger gets a plain 204, so the browser refuses to send the request.
 */
export async function answerPreflight(
  cors: Cors,
  methods: readonly string[],
  req: IncomingMessage,
  res: ServerResponse,
  security: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  req.resume();
  const headers: Record<string, string> = { Allow: ['OPTIONS', ...methods].join(', ') };
  for (const [k, v] of security) headers[k] = v;
  const origin = originOf(req.headers);
  const allowed =
    origin !== undefined &&
    (cors.kind === 'public' || (await cors.preflight(origin).catch(() => false))) &&
    methods.includes(String(req.headers['access-control-request-method'] ?? ''));
  if (cors.kind === 'registered') headers.Vary = 'Origin';
  if (allowed) {
    headers['Access-Control-Allow-Origin'] = cors.kind === 'public' ? '*' : origin;
    headers['Access-Control-Allow-Methods'] = methods.join(', ');
    headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
    headers['Access-Control-Max-Age'] = PREFLIGHT_MAX_AGE;
  }
  res.writeHead(204, headers);
  res.end();
}

/** The request's `Origin` when it names one (`null`, sent by sandboxed and file pages, is never registered). */
function originOf(headers: IncomingMessage['headers']): string | undefined {
  const origin = headers.origin;
  return typeof origin === 'string' && origin !== 'null' && origin.length <= 2048 ? origin : undefined;
}
