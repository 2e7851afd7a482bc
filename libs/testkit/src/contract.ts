// The OpenAPI contract check of the end-to-end tests: a host's listener wrapped so that every answer it sends is
// recorded (method, path, status, content type, JSON body), then checked against the host's own
// `GET /openapi.json` with ajv before the host closes. Every HTTP test that starts a host through testkit (or a
// service's test helper using `contractChecked`) is thereby a contract test: an answer whose status, media type
// or body the document does not describe fails the file, naming the test that received it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

interface Recorded {
  test: string;
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: Buffer;
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document walked by pointer.
type Json = Record<string, any>;

interface Operation {
  template: string;
  pattern: RegExp;
  literal: boolean;
  item: Json;
}

/** A compiled document: its operations and ajv with the document as one schema (`doc#/paths/...`). */
export interface CompiledDocument {
  document: Json;
  operations: Operation[];
  validator(pointer: string): ValidateFunction;
}

const compiled = new Map<string, CompiledDocument>();

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Compiles a document once per process (hosts of one kind serve identical documents). */
export function compileDocument(text: string): CompiledDocument {
  const hit = compiled.get(text);
  if (hit) return hit;
  const document = JSON.parse(text) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, 'doc');
  const validators = new Map<string, ValidateFunction>();
  const operations: Operation[] = Object.entries(document.paths as Json).map(([template, item]) => {
    const source = template
      .split('/')
      .map((seg) => (/^\{.+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { template, pattern: new RegExp(`^${source}$`), literal: !template.includes('{'), item };
  });
  operations.sort((a, b) => Number(b.literal) - Number(a.literal));
  const entry: CompiledDocument = {
    document,
    operations,
    validator(pointer) {
      let v = validators.get(pointer);
      if (!v) {
        v = ajv.getSchema(`doc#${pointer}`);
        if (!v) throw new Error(`no schema at ${pointer}`);
        validators.set(pointer, v);
      }
      return v;
    },
  };
  compiled.set(text, entry);
  return entry;
}

/** The problems of one answer against the document, or [] (an answer on an undocumented path is not judged). */
export function judgeAgainst(doc: CompiledDocument, r: Omit<Recorded, 'test'>): string[] {
  const op = doc.operations.find((o) => o.pattern.test(r.path));
  if (!op) return [];
  const method = r.method.toLowerCase();
  const operation = op.item[method] as Json | undefined;
  // HEAD answers as GET; another method on a documented path is the fleet's JSON 404 (not an operation).
  if (!operation) return [];
  const responses = operation.responses as Json;
  const key = responses[String(r.status)] ? String(r.status) : 'default';
  const response = responses[key] as Json | undefined;
  const where = `${r.method} ${r.path} -> ${r.status}`;
  if (!response) return [`${where}: status not documented for ${method.toUpperCase()} ${op.template}`];
  const content = response.content as Json | undefined;
  // A redirect's body (Express's "Redirecting to ...") is informational; the document describes its Location.
  if (r.status >= 300 && r.status < 400 && !content) return [];
  if (r.body.length === 0) {
    if (!content || response['x-empty-body-reasons'] || r.method === 'HEAD') return [];
    return [`${where}: empty body, the document describes ${Object.keys(content).join(', ')}`];
  }
  if (!content) return [`${where}: a body (${r.contentType}) where the document describes none`];
  const media = r.contentType.split(';')[0]!.trim().toLowerCase();
  if (!content[media])
    return [`${where}: media type ${media || '(none)'}, documented ${Object.keys(content)}`];
  if (media !== 'application/json') return [];
  let value: unknown;
  try {
    value = JSON.parse(r.body.toString('utf8'));
  } catch {
    return [`${where}: not JSON`];
  }
  const pointer = ['', 'paths', op.template, method, 'responses', key, 'content', media, 'schema']
    .map(escapePointer)
    .join('/');
  const validate = doc.validator(pointer);
  if (validate(value)) return [];
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
  return [`${where}: ${errors.join('; ')} in ${r.body.toString('utf8').slice(0, 300)}`];
}

export interface ContractCheck {
  /** The host's listener, checking every answer it sends once `load` has read the document. */
  listener: RequestListener;
  /**
   * Reads `${url}/openapi.json` (compiled once per process and document) and from then on judges every answer as
   * it finishes (answers sent before are judged now). An answer outside the document throws asynchronously: Jest
   * fails the test running at that moment, naming the answer.
   */
  load(url: string): Promise<void>;
}

function currentTest(): string {
  try {
    return (
      (globalThis as { expect?: { getState(): { currentTestName?: string } } }).expect?.getState()
        .currentTestName ?? '(outside a test)'
    );
  } catch {
    return '(outside a test)';
  }
}

function contentTypeOf(res: ServerResponse, written: unknown): string {
  const set = res.getHeader('content-type');
  if (set !== undefined) return String(set);
  if (written && typeof written === 'object') {
    for (const [k, v] of Object.entries(written as Record<string, unknown>)) {
      if (k.toLowerCase() === 'content-type') return String(v);
    }
  }
  return '';
}

/** Wraps a host's listener so that every answer it sends is judged against its OpenAPI document (see `load`). */
export function contractChecked(app: RequestListener): ContractCheck {
  let doc: CompiledDocument | undefined;
  const pending: Recorded[] = [];
  const judge = (r: Recorded) => {
    if (r.path === '/openapi.json') return;
    const problems = judgeAgainst(doc!, r);
    if (problems.length === 0) return;
    const error = new Error(`answer outside the OpenAPI document [${r.test}]: ${problems.join('; ')}`);
    setImmediate(() => {
      throw error;
    });
  };
  const listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array),
      );
    };
    const { write, end, writeHead } = res;
    let headed: unknown;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      headed = args.find((a) => a && typeof a === 'object');
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    const test = currentTest();
    res.on('finish', () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const r: Recorded = {
        test,
        method: req.method ?? 'GET',
        path: q < 0 ? url : url.slice(0, q),
        status: res.statusCode,
        contentType: contentTypeOf(res, headed),
        body: Buffer.concat(chunks),
      };
      if (doc) judge(r);
      else pending.push(r);
    });
    app(req, res);
  };
  return {
    listener,
    async load(url) {
      const answer = await fetch(`${url}/openapi.json`);
      if (answer.status !== 200) throw new Error(`contract: ${url}/openapi.json answered ${answer.status}`);
      doc = compileDocument(await answer.text());
      for (const r of pending.splice(0)) judge(r);
    },
  };
}

/** The OpenAPI 3.1 schema validator's verdict on a document (its CLI, run by Node: the package is ESM-only). */
function validateOpenApi(text: string): { valid: boolean; errors?: unknown } {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, text);
  try {
    const bin = join(
      dirname(require.resolve('@seriousme/openapi-schema-validator/package.json')),
      'bin/validate-api-cli.js',
    );
    const run = spawnSync(process.execPath, [bin, file], { encoding: 'utf8' });
    try {
      return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
    } catch {
      return { valid: false, errors: run.stderr || run.stdout };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The document a host serves at `${url}/openapi.json` is valid OpenAPI 3.1, documents every route in `declared`
 * (`:name` as `{name}`) and every schema in it compiles; throws naming what is wrong.
 */
export async function checkOpenApiDocument(
  url: string,
  declared: ReadonlyArray<{ method: string; path: string }>,
): Promise<Json> {
  const answer = await fetch(`${url}/openapi.json`);
  if (answer.status !== 200) throw new Error(`${url}/openapi.json answered ${answer.status}`);
  const text = await answer.text();
  const verdict = validateOpenApi(text);
  if (!verdict.valid) throw new Error(`not valid OpenAPI 3.1: ${JSON.stringify(verdict.errors, null, 1)}`);
  const doc = compileDocument(text);
  const paths = doc.document.paths as Json;
  const missing = declared.filter(
    (r) => !paths[r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[r.method.toLowerCase()],
  );
  if (missing.length) throw new Error(`undocumented routes: ${missing.map((r) => `${r.method} ${r.path}`)}`);
  for (const [template, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item as Json)) {
      for (const [status, response] of Object.entries((op as Json).responses as Json)) {
        for (const media of Object.keys(((response as Json).content as Json | undefined) ?? {})) {
          const pointer = ['', 'paths', template, method, 'responses', status, 'content', media, 'schema']
            .map(escapePointer)
            .join('/');
          doc.validator(pointer);
        }
      }
    }
  }
  return doc.document;
}
