// The management API's OpenAPI 3.1 document, built from the command table: every route with its path parameters,
// its query or JSON body members (the command's flags in camelCase), its success answer and its problem details.
import { PROBLEM_TYPE, PROBLEMS } from '@svc/platform';
import type { Command } from '@svc/provisioning/commands';
import { memberOf } from './command-input';
import { roleFor } from './operator-auth';
import { MAX_LIMIT } from './pagination';

type Json = Record<string, unknown>;

const templated = (path: string) => path.replace(/:([A-Za-z0-9_-]+)/g, '{$1}');
const problem = (description: string) => ({
  description,
  content: { [PROBLEM_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
});

function memberSchema(spec: Command['flags'][string]): Json {
  if (spec.json) return { description: 'the JSON the CLI reads from the file', type: 'object' };
  if (spec.switch) return { type: 'boolean' };
  if (spec.list) return { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };
  return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
}

function operation(c: Command): Json {
  const route = c.http;
  const inPath = new Set(
    route.path
      .split('/')
      .filter((s) => s.startsWith(':'))
      .map((s) => s.slice(1)),
  );
  const members = Object.entries(c.flags).filter(([flag]) => !inPath.has(flag));
  const parameters: Json[] = [...inPath].map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.method === 'GET') {
    for (const [flag, spec] of members)
      parameters.push({ name: spec.json ?? memberOf(flag), in: 'query', schema: memberSchema(spec) });
    if (route.page) {
      parameters.push({
        name: 'limit',
        in: 'query',
        schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 50 },
      });
      parameters.push({ name: 'cursor', in: 'query', schema: { type: 'string' } });
    }
  }
  if (route.method === 'POST')
    parameters.push({ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 255 } });
  if (route.method === 'PATCH' || route.method === 'DELETE')
    parameters.push({ name: 'If-Match', in: 'header', schema: { type: 'string' } });
  const op: Json = {
    operationId: c.name.replace(/[^a-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ?? '').toUpperCase()),
    summary: `pnpm admin ${c.name}`,
    description: `${c.synopsis.trim()}\n\nRole: ${roleFor(route)}.`,
    security: [{ operatorKey: [] }],
    parameters,
    responses: {
      [route.created ? '201' : '200']: {
        description: 'the JSON the CLI prints',
        headers: {
          ...(route.created ? { Location: { schema: { type: 'string' } } } : {}),
          ...(route.method === 'GET' && !route.page ? { ETag: { schema: { type: 'string' } } } : {}),
        },
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      ...(route.method === 'GET' && !route.page
        ? { '304': { description: 'If-None-Match names the ETag' } }
        : {}),
      '400': problem(PROBLEMS['invalid-input'].title),
      '401': problem(PROBLEMS.unauthenticated.title),
      '403': problem(PROBLEMS.forbidden.title),
      '404': problem(PROBLEMS['not-found'].title),
      '409': problem(PROBLEMS.conflict.title),
      ...(route.method === 'PATCH' || route.method === 'DELETE'
        ? { '412': problem(PROBLEMS['precondition-failed'].title) }
        : {}),
      ...(route.method === 'POST' || route.method === 'PATCH'
        ? { '413': problem(PROBLEMS['too-large'].title) }
        : {}),
      '422': problem(PROBLEMS.refused.title),
      '429': problem(PROBLEMS['rate-limited'].title),
      '503': problem(PROBLEMS.unavailable.title),
      default: problem('another problem (415, 500)'),
    },
  };
  if (route.method === 'POST' || route.method === 'PATCH') {
    op.requestBody = {
      required: route.method === 'PATCH',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(
              members.map(([flag, spec]) => [spec.json ?? memberOf(flag), memberSchema(spec)]),
            ),
          },
        },
      },
    };
  }
  return op;
}

export function managementOpenApi(commands: readonly Command[]): Json {
  const paths: Record<string, Json> = {};
  for (const c of commands) {
    const path = templated(c.http.path);
    paths[path] ??= {};
    paths[path][c.http.method.toLowerCase()] = operation(c);
  }
  const plain = (summary: string) => ({ get: { summary, responses: { '200': { description: 'ok' } } } });
  paths['/healthz'] = plain('process up');
  paths['/readyz'] = plain('PostgreSQL and Redis reachable');
  paths['/openapi.json'] = plain('this document');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Management API',
      version: '1',
      description:
        'Every admin CLI command over HTTP (docs/management.md). Inputs are the command flags in camelCase; answers are the JSON the CLI prints.',
    },
    paths,
    components: {
      securitySchemes: {
        operatorKey: { type: 'http', scheme: 'bearer', description: 'an operator key, mk_...' },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['pointer', 'detail'],
                properties: { pointer: { type: 'string' }, detail: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  };
}
