// The OpenAPI 3.1 document of a host, built once at start-up from its endpoint table: the literal paths, the
// request bodies' zod schemas (the ones that validate requests), the declared success answers (`doc.answers`, the
// spec's wire shapes) and every error the endpoint answers with, from the reasons table (reasons.ts) or the
// endpoint's OAuth error family. Served at `GET /openapi.json` by serveEndpoints.
import { type ZodType, z } from 'zod';
import type { Reason } from './errors';
import { answerOf, type BodyShape, VARIANT_ANSWERS } from './reasons';
import { Agreement, ClaimView, Errand, PageCallError } from './wire';

/** How a caller authenticates: the scheme names of `components.securitySchemes`. */
export type AuthScheme = 'bearer' | 'clientAuth' | 'publicKeyAssertion' | 'clientSecret';

/** One documented success answer (200 unless `status`). */
export interface DocAnswer {
  status?: number;
  /** The JSON body's wire shape; absent with `html`, `redirect` or `empty`. */
  schema?: ZodType;
  /** An HTML page. */
  html?: boolean;
  /** Other media types (static assets), each a string body. */
  media?: readonly string[];
  /** A redirect (Location header). */
  redirect?: boolean;
  /** No body. */
  empty?: boolean;
  /** Response headers beside the security and no-store ones: name -> what it carries. */
  headers?: Readonly<Record<string, string>>;
  description?: string;
}

/** What the document says about an endpoint beyond its method, path and request body. */
export interface EndpointDoc {
  summary?: string;
  /** Success answers; a JSON endpoint without any is documented as an undescribed JSON object. */
  answers?: readonly DocAnswer[];
  /**
   * The reasons the endpoint answers with, beyond those every endpoint has (InvalidBody for a body, the 503
   * TemporarilyUnavailable of a dependency failure); their statuses and bodies come from the reasons table.
   */
  reasons?: readonly Reason[];
  /**
   * OAuth-shaped errors (`{error, error_description?, ...}`) by status: the error codes (device /device-token,
   * OIDC /token, bearer endpoints). Such an endpoint answers no `reason` bodies unless `reasons` names some.
   */
  oauthErrors?: Readonly<Record<number, readonly string[]>>;
  /** Every failure is answered in the OAuth family (`mapError`): no reason bodies at all (device /device-token). */
  oauthOnly?: boolean;
  /** Extra members of OAuth error bodies (device `interval`). */
  oauthExtra?: Readonly<Record<string, ZodType>>;
  /** Headers of the OAuth error answers by status (WWW-Authenticate, Retry-After). */
  oauthHeaders?: Readonly<Record<number, Readonly<Record<string, string>>>>;
  /** Error pages (HTML) by status, for page endpoints. */
  errorPages?: readonly number[];
  /** Headers of those error pages by status (a rate limit's Retry-After). */
  errorPageHeaders?: Readonly<Record<number, Readonly<Record<string, string>>>>;
  auth?: AuthScheme;
}

/** What the generator needs of a declared endpoint (endpoints.ts's `Declared`). */
export interface DocumentedEndpoint {
  method: string;
  path: string;
  noStore: boolean;
  body: { kind: 'none' } | { kind: 'json' | 'form'; schema: ZodType; refusal?: Reason };
  /** The query's schema (query.ts): an object of named parameters, each one documented from it. */
  query?: ZodType;
  doc?: EndpointDoc;
  /** Page endpoints answer HTML. */
  page?: unknown;
}

export interface HostDocument {
  /** The host's name (`HostAppOptions.name`): the answer sites of the reasons table. */
  name: string;
  /** Session API errors carry an optional `message`. */
  includeMessages?: boolean;
  endpoints: readonly DocumentedEndpoint[];
}

type Json = Record<string, unknown>;

/** A zod schema as a JSON Schema 2020-12 object (OpenAPI 3.1's dialect), without its `$schema`. */
export function jsonSchemaOf(schema: ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

const RETRY_AFTER = { description: 'Seconds to wait before retrying.', schema: { type: 'string' } };
const header = (description: string) => ({ description, schema: { type: 'string' } });

/** The headers a reason's answer carries (rate limits and unavailability: Retry-After). */
const REASON_HEADERS: Partial<Record<Reason, Record<string, string>>> = {
  TooManyAttempts: { 'Retry-After': 'Seconds until the limit admits another attempt.' },
  TemporarilyUnavailable: { 'Retry-After': 'Seconds to wait before retrying.' },
};

/** `:name` segments as OpenAPI `{name}` templates. */
export const templatedPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function reasonBody(reasons: Reason[], shape: BodyShape, includeMessages: boolean): Json {
  const properties: Json = { reason: { type: 'string', enum: reasons } };
  const required = ['reason'];
  if (shape === 'claim-gate') {
    properties.claims = { $ref: '#/components/schemas/ClaimView' };
    properties.errand = { $ref: '#/components/schemas/Errand' };
    required.push('claims', 'errand');
  }
  if (shape === 'agreement') {
    properties.requiredRevision = { type: 'integer', minimum: 1 };
    properties.termsUrl = { type: 'string', format: 'uri' };
    properties.confirmation = { type: 'string' };
    properties.agreement = { $ref: '#/components/schemas/Agreement' };
    required.push('requiredRevision', 'termsUrl', 'confirmation', 'agreement');
  }
  if (includeMessages) properties.message = { type: 'string' };
  return { type: 'object', properties, required, additionalProperties: false };
}

interface StatusEntry {
  shapes: Map<BodyShape, Reason[]>;
  headers: Record<string, string>;
}

/** The error answers of an endpoint by status, from the reasons table at (host, path). */
function reasonResponses(host: HostDocument, e: DocumentedEndpoint): Map<number, StatusEntry> {
  const reasons = new Set<Reason>(e.doc?.reasons ?? []);
  const oauth = e.doc?.oauthErrors !== undefined;
  // A body the reader or schema refuses is InvalidBody (and the declared refusal), unless the endpoint answers its
  // own error family; a PostgreSQL or Redis failure is the 503 TemporarilyUnavailable unless it maps every error.
  if (!oauth && e.body.kind !== 'none') {
    // An unreadable body (not JSON, too large) is InvalidBody even where a schema failure has its own refusal.
    reasons.add('InvalidBody');
    if (e.body.refusal) reasons.add(e.body.refusal);
  }
  // A query its schema refuses is InvalidBody (query.ts).
  if (!oauth && e.query) reasons.add('InvalidBody');
  if (!e.doc?.oauthOnly) reasons.add('TemporarilyUnavailable');
  const byStatus = new Map<number, StatusEntry>();
  const add = (reason: Reason, status: number, shape: BodyShape) => {
    const entry = byStatus.get(status) ?? { shapes: new Map<BodyShape, Reason[]>(), headers: {} };
    byStatus.set(status, entry);
    const list = entry.shapes.get(shape) ?? [];
    if (!list.includes(reason)) list.push(reason);
    entry.shapes.set(shape, list);
    Object.assign(entry.headers, REASON_HEADERS[reason]);
  };
  for (const reason of reasons) {
    const { status, body } = answerOf(reason, { host: host.name, path: e.path });
    add(reason, status, body);
    // A body too large to read (InvalidBody's variant) has its own status.
    if (reason === 'InvalidBody' && e.body.kind !== 'none') {
      for (const v of Object.values(VARIANT_ANSWERS.InvalidBody ?? {})) add(reason, v.status, v.body);
    }
  }
  return byStatus;
}

function describeReasons(entry: StatusEntry): string {
  const parts: string[] = [];
  for (const [shape, reasons] of entry.shapes) {
    parts.push(shape === 'empty' ? `${reasons.join(', ')} (empty body)` : reasons.join(', '));
  }
  return parts.join('; ');
}

function headersOf(named: Readonly<Record<string, string>>): Json {
  const out: Json = {};
  for (const [name, description] of Object.entries(named)) {
    out[name] = name === 'Retry-After' ? { ...RETRY_AFTER, description } : header(description);
  }
  return out;
}

/** A page's failures: the pages' error handler answers HTML (or JSON to the pages' own script calls). */
function pageErrorResponses(e: DocumentedEndpoint): Json {
  const out: Json = {};
  for (const status of e.doc?.errorPages ?? []) {
    const headers = e.doc?.errorPageHeaders?.[status];
    out[String(status)] = {
      description: 'An error page.',
      ...(headers ? { headers: headersOf(headers) } : {}),
      content: { 'text/html': { schema: { type: 'string' } } },
    };
  }
  out.default = {
    description: "An error page (HTML), or a JSON error to the page's own script calls.",
    content: {
      'text/html': { schema: { type: 'string' } },
      'application/json': { schema: { $ref: '#/components/schemas/PageCallError' } },
    },
  };
  return out;
}

function errorResponses(host: HostDocument, e: DocumentedEndpoint): Json {
  if (e.page) return pageErrorResponses(e);
  const out: Json = {};
  for (const [status, entry] of reasonResponses(host, e)) {
    const bodies = [...entry.shapes]
      .filter(([shape]) => shape !== 'empty')
      .map(([shape, reasons]) => reasonBody(reasons, shape, host.includeMessages ?? false));
    const response: Json = { description: describeReasons(entry) };
    if (Object.keys(entry.headers).length) response.headers = headersOf(entry.headers);
    if (bodies.length) {
      response.content = {
        'application/json': { schema: bodies.length === 1 ? bodies[0] : { oneOf: bodies } },
      };
    }
    // Status-only reasons beside body reasons at one status: the answer may also have no body at all.
    const empty = entry.shapes.get('empty');
    if (empty && bodies.length) response['x-empty-body-reasons'] = empty;
    out[String(status)] = response;
  }
  const oauth = e.doc?.oauthErrors;
  if (oauth) {
    for (const [status, codes] of Object.entries(oauth)) {
      const properties: Json = {
        error: { type: 'string', enum: codes },
        error_description: { type: 'string' },
      };
      for (const [name, schema] of Object.entries(e.doc?.oauthExtra ?? {})) {
        properties[name] = jsonSchemaOf(schema, 'output');
      }
      const response: Json = {
        description: `OAuth error: ${codes.join(', ')}`,
        content: {
          'application/json': {
            schema: { type: 'object', properties, required: ['error'], additionalProperties: false },
          },
        },
      };
      const headers = e.doc?.oauthHeaders?.[Number(status)];
      if (headers) response.headers = headersOf(headers);
      const existing = out[status] as Json | undefined;
      if (existing?.content) {
        // A status with both reason bodies and OAuth bodies: either.
        const a = (existing.content as Json)['application/json'] as Json;
        const b = (response.content as Json)['application/json'] as Json;
        a.schema = { oneOf: [a.schema, b.schema] };
        existing.description = `${existing.description}; ${response.description}`;
      } else out[status] = response;
    }
  }
  // An error nobody anticipated: a bare 500 (no body).
  out['500'] ??= { description: 'Unexpected failure (no body).' };
  return out;
}

function successResponses(e: DocumentedEndpoint): Json {
  const out: Json = {};
  const answers =
    e.doc?.answers ??
    // A page without its own answers is HTML or a redirect; a page script's JSON call declares its wire shape.
    (e.page ? [{ html: true }, { status: 302, redirect: true }, { status: 303, redirect: true }] : [{}]);
  const common: Record<string, string> = {};
  if (e.noStore) {
    common['Cache-Control'] = 'no-store';
    common.Pragma = 'no-cache';
  }
  for (const a of answers) {
    const status = String(a.status ?? 200);
    const response: Json = { description: a.description ?? (a.redirect ? 'Redirect.' : 'Success.') };
    const headers = { ...common, ...a.headers };
    if (a.redirect) headers.Location = 'Where the browser goes next.';
    if (Object.keys(headers).length) response.headers = headersOf(headers);
    if (a.html) response.content = { 'text/html': { schema: { type: 'string' } } };
    else if (a.media) {
      response.content = Object.fromEntries(a.media.map((m) => [m, { schema: { type: 'string' } }]));
    } else if (a.schema)
      response.content = { 'application/json': { schema: jsonSchemaOf(a.schema, 'output') } };
    else if (!a.empty && !a.redirect) {
      response.content = { 'application/json': { schema: { type: 'object' } } };
    }
    out[status] = response;
  }
  return out;
}

function requestBody(e: DocumentedEndpoint): Json | undefined {
  if (e.body.kind === 'none') return undefined;
  const type = e.body.kind === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  return { required: true, content: { [type]: { schema: jsonSchemaOf(e.body.schema, 'input') } } };
}

/** The query parameters of a query schema: one per named member, its description and type from the schema. */
function queryParameters(e: DocumentedEndpoint): Json[] {
  const schema = jsonSchemaOf(e.query!, 'input');
  const properties = schema.properties as Record<string, Json> | undefined;
  if (schema.type !== 'object' || !properties) {
    throw new Error(`${e.method} ${e.path}: a query schema is an object of named parameters`);
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, { description, ...type }]) => {
    const param: Json = { name, in: 'query', required: required.has(name) };
    if (typeof description === 'string') param.description = description;
    param.schema = type;
    return param;
  });
}

function parameters(e: DocumentedEndpoint): Json[] {
  const params: Json[] = [];
  for (const m of e.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (e.query) params.push(...queryParameters(e));
  return params;
}

const SECURITY_SCHEMES: Record<AuthScheme, Json> = {
  bearer: { type: 'http', scheme: 'bearer', description: 'An access token (Authorization: Bearer).' },
  clientAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'A single-use client-auth JWT bound to the exact request bytes (interface spec, Authentication).',
  },
  publicKeyAssertion: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'A signed public-key assertion (interface spec, Public-key assertion).',
  },
  clientSecret: {
    type: 'http',
    scheme: 'basic',
    description:
      'OIDC client authentication (client_secret_basic, or client_id and client_secret in the form).',
  },
};

const HEALTH = {
  healthz: { status: 'ok' },
  readyz: { status: 'ready' },
};

/** The OpenAPI 3.1 document of a host's endpoint table (plus /healthz, /readyz and /openapi.json itself). */
export function openApiDocument(host: HostDocument): Json {
  const paths: Record<string, Json> = {};
  const schemes = new Set<AuthScheme>();
  for (const e of host.endpoints) {
    const op: Json = {
      operationId: `${e.method.toLowerCase()}${e.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string) => (c ?? '').toUpperCase())}`,
      responses: { ...successResponses(e), ...errorResponses(host, e) },
    };
    if (e.doc?.summary) op.summary = e.doc.summary;
    const params = parameters(e);
    if (params.length) op.parameters = params;
    const body = requestBody(e);
    if (body) op.requestBody = body;
    if (e.doc?.auth) {
      schemes.add(e.doc.auth);
      op.security = [{ [e.doc.auth]: [] }];
    }
    const path = templatedPath(e.path);
    paths[path] ??= {};
    paths[path][e.method.toLowerCase()] = op;
  }
  for (const [name, ok] of Object.entries(HEALTH)) {
    const properties: Json = { status: { const: ok.status } };
    if (name === 'healthz')
      properties.version = {
        type: 'object',
        description: 'Which build answers: its git commit and build time (null when run from source).',
        properties: { commit: { type: 'string' }, builtAt: { type: ['string', 'null'] } },
        required: ['commit', 'builtAt'],
      };
    const schema = { type: 'object', properties, required: ['status'] };
    const responses: Json = { '200': { description: 'OK.', content: { 'application/json': { schema } } } };
    if (name === 'readyz') {
      responses['503'] = {
        description: 'Not ready (database, Redis or keys).',
        content: {
          'application/json': {
            schema: { type: 'object', properties: { status: { const: 'not_ready' } }, required: ['status'] },
          },
        },
      };
    }
    paths[`/${name}`] = { get: { operationId: `get${name}`, responses } };
  }
  paths['/openapi.json'] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document.',
      responses: { '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: {} } } } },
    },
  };
  const securitySchemes: Json = {};
  for (const s of schemes) securitySchemes[s] = SECURITY_SCHEMES[s];
  return {
    openapi: '3.1.1',
    info: {
      title: `${host.name} host`,
      version: '1',
      description:
        'Generated at start-up from the host endpoint table (libs/platform/src/openapi.ts): request schemas are ' +
        'the zod schemas that validate requests; error statuses and bodies come from the reasons table.',
    },
    paths,
    components: {
      schemas: {
        ClaimView: jsonSchemaOf(ClaimView, 'output'),
        Errand: jsonSchemaOf(Errand, 'output'),
        Agreement: jsonSchemaOf(Agreement, 'output'),
        PageCallError: jsonSchemaOf(PageCallError, 'output'),
      },
      securitySchemes,
    },
  };
}
