// The management API: one endpoint per admin command, derived from the one command table (`COMMANDS`, each command
// declaring its route), so a command cannot ship without its route. Each endpoint authenticates the operator key,
// reads the command's flags from the path and the JSON body (or query), parses them with the command's own rules,
// runs it as the CLI would and answers the CLI's JSON, with the REST conventions on top: 201 + Location for a
// creation, ETag on single-resource reads, If-Match on PATCH and DELETE, Idempotency-Key on POST, pagination. A change
// is one audited transaction with its resource's lock, its If-Match check and its Idempotency-Key answer.
import { createHash, randomUUID } from 'node:crypto';
import { type Answer, type Endpoint, type EndpointRequest, endpoint, ProblemError } from '@svc/platform';
import { type AdminContext, COMMANDS, type Command, type Route } from '@svc/provisioning/commands';
import { z } from 'zod';
import type { ManagementDeps } from '../deps';
import { checkIdempotencyKey, onceForKey, requestHashOf } from '../domain/idempotency';
import type { StoredAnswer } from '../domain/ports';
import { changeContext, contextFor, operatorContext } from './command-context';
import { flagsOf, parseInput } from './command-input';
import { authenticateOperator, type Operator } from './operator-auth';
import { PAGE_PARAMS, pageOf, pageRequestOf } from './pagination';
import { toProblem } from './problems';

const JSON_TYPE = 'application/json; charset=utf-8';
const QUERY = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const BODY = z.record(z.string(), z.unknown());
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The CLI's serialisation: bigints (int64 platform app ids) as exact decimal strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/** A strong ETag of an answer's exact bytes. */
export function etagOf(bytes: string): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-Match (or If-None-Match) header names `etag` (or is `*`); weak tags never match If-Match. */
function matches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t === etag);
}

/** The single-resource read whose ETag a PATCH or DELETE route's If-Match is checked against: the GET at the longest prefix of its path. */
export function resourceReadOf(route: Route, commands: readonly Command[]): Command | undefined {
  const segments = route.path.split('/');
  for (let n = segments.length; n > 2; n--) {
    const prefix = segments.slice(0, n).join('/');
    const read = commands.find((c) => c.http.method === 'GET' && !c.http.page && c.http.path === prefix);
    if (read) return read;
  }
  return undefined;
}

/** `/v1/applications/{applicationAnchor}` filled from the answer, its nested objects, then the request's input. */
function locationOf(template: string, ...sources: Record<string, unknown>[]): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    for (const s of sources) {
      if (typeof s[name] === 'string' || typeof s[name] === 'number')
        return encodeURIComponent(String(s[name]));
      for (const v of Object.values(s)) {
        const inner = v && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined;
        if (typeof inner === 'string') return encodeURIComponent(inner);
      }
    }
    return '';
  });
}

/** The path of the resource `read` shows, its parameters filled in from `params` (the name of its lock). */
function resourcePathOf(read: Command, params: Record<string, string>): string {
  return read.http.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
}

function paramsFor(read: Command, params: Record<string, string>): Record<string, string> {
  const names = new Set(
    read.http.path
      .split('/')
      .filter((s) => s.startsWith(':'))
      .map((s) => s.slice(1)),
  );
  return Object.fromEntries(Object.entries(params).filter(([k]) => names.has(k)));
}

function commandEndpoint(deps: ManagementDeps, command: Command, commands: readonly Command[]): Endpoint {
  const route = command.http;
  const reads = route.method === 'GET';
  // The resource a change is made to (its lock), and the one If-Match is checked against (PATCH and DELETE).
  const resource = reads ? undefined : resourceReadOf(route, commands);
  const read = route.method === 'PATCH' || route.method === 'DELETE' ? resource : undefined;

  async function run(
    c: Command,
    ctx: AdminContext,
    params: Record<string, string>,
    members: Record<string, unknown>,
  ) {
    const input = parseInput(c, flagsOf(c, params, members, c.http.page ? PAGE_PARAMS : undefined));
    try {
      return (await c.run(ctx, input)) as Record<string, unknown>;
    } catch (err) {
      throw toProblem(err, deps.logger, c);
    }
  }

  /** 412 unless the resource's current ETag is one If-Match names (read in the change's transaction, locked). */
  async function checkPrecondition(req: EndpointRequest<unknown, Operator, unknown>, ctx: AdminContext) {
    const header = req.headers['if-match'];
    if (header === undefined) return;
    const current = read ? etagOf(toJson(await run(read, ctx, paramsFor(read, req.params), {}))) : undefined;
    if (!current || !matches(String(header), current))
      throw new ProblemError('precondition-failed', {
        detail: 'the resource changed since the ETag named in If-Match was read; read it again',
      });
  }

  async function answer(
    req: EndpointRequest<unknown, Operator, unknown>,
    ctx: AdminContext,
  ): Promise<StoredAnswer> {
    const members = (reads ? req.query : req.body) as Record<string, unknown>;
    await checkPrecondition(req, ctx);
    let result = await run(command, ctx, req.params, members ?? {});
    if (route.page) result = pageOf(result, route.page, pageRequestOf(members ?? {}));
    const body = toJson(result);
    const headers: Record<string, string> = {};
    let status = 200;
    if (route.created) {
      status = 201;
      headers.Location = locationOf(route.created, result, req.params, members ?? {});
    }
    if (reads && !route.page) headers.ETag = etagOf(body);
    return { status, headers, body };
  }

  /**
   * A change as one audited transaction: the resource's lock (the API's changes to one resource run one at a time,
   * so no other change lands between an If-Match check and the change it guards), the check, the command's own
   * changes and their audit rows, and, with an Idempotency-Key, its answer: all commit together or not at all.
   */
  function change(
    req: EndpointRequest<unknown, Operator, unknown>,
    claim?: { operatorKeyId: string; key: string },
  ): Promise<StoredAnswer> {
    return deps.changes.as(operatorContext(req.auth)).run(async (ports) => {
      if (resource) await ports.resources.lock(resourcePathOf(resource, req.params));
      const stored = await answer(req, changeContext(deps, req.auth, ports));
      if (claim)
        await ports.idempotency.complete(claim.operatorKeyId, claim.key, stored, new Date(deps.clock()));
      return stored;
    });
  }

  return endpoint<
    Record<string, unknown> | undefined,
    Operator,
    Record<string, string | string[]> | undefined
  >({
    method: route.method,
    path: route.path,
    body:
      route.method === 'POST' || route.method === 'PATCH'
        ? { kind: 'json', schema: BODY, limit: deps.config.bodyLimitBytes, optional: route.method === 'POST' }
        : { kind: 'none' },
    query: reads ? QUERY : undefined,
    noStore: true,
    doc: { summary: `pnpm admin ${command.name}` },
    authenticate: (req) => {
      const given = req.headers['x-request-id'];
      const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      return authenticateOperator(deps, req, route, requestId);
    },
    mapError: (err) => toProblem(err, deps.logger, command),
    async handle(req): Promise<Answer> {
      const key = req.headers['idempotency-key'];
      let outcome: { answer: StoredAnswer; replayed: boolean };
      if (route.method === 'POST' && key !== undefined) {
        const claim = { operatorKeyId: req.auth.key.id, key: checkIdempotencyKey(String(key)) };
        outcome = await onceForKey(
          deps.idempotency,
          deps.clock,
          {
            ...claim,
            requestHash: requestHashOf(route.method, route.path + JSON.stringify(req.params), req.rawBody),
          },
          // A refusal rolled the change back: its answer is stored apart (nothing changed); a 5xx is not kept.
          () =>
            change(req, claim).then(
              (answer) => ({ answer, stored: true }),
              (err: unknown) => ({
                answer: problemAnswer(toProblem(err, deps.logger, command)),
                stored: false,
              }),
            ),
        );
      } else
        outcome = {
          answer: reads ? await answer(req, contextFor(deps, req.auth)) : await change(req),
          replayed: false,
        };
      const { status, headers, body } = outcome.answer;
      const etag = headers.ETag;
      const inm = req.headers['if-none-match'];
      if (etag && inm !== undefined && matches(String(inm), etag))
        return { status: 304, headers: { ETag: etag, 'X-Request-Id': req.auth.requestId } };
      return {
        status,
        headers: {
          ...headers,
          'X-Request-Id': req.auth.requestId,
          ...(outcome.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
        },
        raw: body,
        contentType: status >= 400 ? 'application/problem+json' : JSON_TYPE,
      };
    },
  }) as Endpoint;
}

/** A refusal kept as the first answer of an Idempotency-Key (a 4xx is the answer; a 5xx is not kept). */
function problemAnswer(p: ProblemError): StoredAnswer {
  if (p.status >= 500) throw p;
  return { status: p.status, headers: p.headers, body: JSON.stringify(p.body()) };
}

/** Every command's endpoint. */
export function commandEndpoints(deps: ManagementDeps, commands: readonly Command[] = COMMANDS): Endpoint[] {
  return commands.map((c) => commandEndpoint(deps, c, commands));
}
