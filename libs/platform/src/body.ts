// The one request-body reader of every endpoint on both stacks (the fast dispatcher and the page adapter, JSON
// bodies and page forms): identity encoding only, a size limit enforced on declared and streamed (chunked) bytes
// alike, the declared media type only, valid UTF-8 only, and no string PostgreSQL cannot store. Refusals are
// InvalidBody.
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ServiceError } from './errors';
import { isStorableText, isStorableValue } from './text';

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface BodyRule {
  /** `json`: application/json, a JSON object. `form`: application/x-www-form-urlencoded, flat string fields. */
  kind: 'json' | 'form';
  /** Largest body accepted, in bytes (413 above it). */
  limit: number;
  /** Forms: the most fields accepted. */
  maxFields?: number;
  /**
   * Forms: a repeated field is refused (`refuse`, the default), or kept with every value in order as a string
   * array (`list`: for a protocol that answers repetition itself, OAuth 2.0 3.1's `invalid_request` at /authorize).
   */
  repeats?: 'refuse' | 'list';
  /**
   * JSON: a request without a body (no Content-Type, no length, not chunked) reads as `{}` (a management API
   * POST whose inputs are all in its path); any body sent is held to every rule.
   */
  optional?: boolean;
}

export interface ReadBody {
  /** The exact bytes (for requestHash binding). */
  raw: Buffer;
  body: Record<string, unknown>;
}

const BACKSLASH = 0x5c;
const MEDIA_TYPE = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

function refuse(message: string): ServiceError {
  return new ServiceError('InvalidBody', { message });
}

/** An unread oversized body is not drained: the connection closes after the answer. */
function tooLarge(): ServiceError {
  return new ServiceError('InvalidBody', {
    variant: 'tooLarge',
    message: 'body too large',
    headers: { Connection: 'close' },
  });
}

/** No body at all: no Content-Type, a declared length of 0 or none, and no Transfer-Encoding. */
function isBodyless(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (
    req.headers['content-type'] === undefined &&
    req.headers['transfer-encoding'] === undefined &&
    (length === undefined || length.trim() === '0')
  );
}

/** The checks that need only the headers: encoding, media type and charset, declared length. */
function checkHeaders(req: IncomingMessage, rule: BodyRule): void {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') throw refuse('Content-Encoding must be identity');
  const [type, ...params] = (req.headers['content-type'] ?? '').split(';');
  if (type?.trim().toLowerCase() !== MEDIA_TYPE[rule.kind]) {
    throw refuse(`Content-Type must be ${MEDIA_TYPE[rule.kind]}`);
  }
  for (const param of params) {
    const [name, value] = param.split('=');
    if (name?.trim().toLowerCase() !== 'charset') continue;
    const charset = value?.trim().replace(/^"|"$/g, '').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') throw refuse('the charset must be UTF-8');
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > rule.limit) throw tooLarge();
}

function collect(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('aborted', () => reject(refuse('the request was aborted')));
    req.once('error', () => reject(refuse('the request was aborted')));
  });
}

function parseJson(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) throw refuse('the request body is empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw refuse('the request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw refuse('the request body must be a JSON object');
  }
  // Valid UTF-8 cannot carry NUL inside a JSON string or a surrogate at all: only a \u escape can, so the walk
  // runs only for bodies with a backslash (the hot endpoints' token bodies have none; the scan is a memchr, ~40 ns
  // per KB, where looking for the two-byte `\u` costs ~300 ns).
  if (raw.indexOf(BACKSLASH) !== -1 && !isStorableValue(parsed)) {
    throw refuse('the request body has a character that cannot be stored');
  }
  return parsed as Record<string, unknown>;
}

function decodeFormPart(part: string): string {
  let text: string;
  try {
    text = decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw refuse('the form is not valid percent-encoded UTF-8');
  }
  if (!isStorableText(text)) throw refuse('the form has a character that cannot be stored');
  return text;
}

function parseForm(raw: Buffer, maxFields: number, repeats: 'refuse' | 'list'): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  const text = raw.toString('utf8');
  if (text.length === 0) return fields;
  const pairs = text.split('&');
  if (pairs.length > maxFields) throw refuse('the form has too many fields');
  for (const pair of pairs) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    const name = decodeFormPart(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodeFormPart(pair.slice(eq + 1));
    if (!Object.hasOwn(fields, name)) fields[name] = value;
    else if (repeats === 'refuse') throw refuse('a form field is repeated');
    else fields[name] = [...[fields[name]].flat(), value];
  }
  return fields;
}

/** Reads and checks a request body by `rule`; throws InvalidBody (400, or 413 when too large). */
export async function readBody(req: IncomingMessage, rule: BodyRule): Promise<ReadBody> {
  if (rule.optional && isBodyless(req)) return { raw: Buffer.alloc(0), body: {} };
  checkHeaders(req, rule);
  const raw = await collect(req, rule.limit);
  if (!isUtf8(raw)) throw refuse('the request body is not valid UTF-8');
  const body =
    rule.kind === 'json' ? parseJson(raw) : parseForm(raw, rule.maxFields ?? 50, rule.repeats ?? 'refuse');
  return { raw, body };
}
