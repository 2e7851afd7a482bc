// The query string of an endpoint that declares a `query` schema: decoded once by the dispatcher (both stacks) as
// WHATWG URLSearchParams does (`+` a space, undecodable escapes kept as written), every parameter a string and a
// repeated one the list of its values in order, then checked by the schema. A failure is InvalidBody naming the
// parameters, the one documented refusal of malformed input (spec, Errors). Endpoints without a schema never
// parse their URL.
import { type ZodType, z } from 'zod';
import { ServiceError } from './errors';
import { storableText } from './text';

/** What a query schema sees: each parameter's value, or the values of a repeated one in order (a string array). */
export type QueryInput = Record<string, string | string[]>;

/** The parameters of a query string (without its `?`); repeats kept as lists. */
export function queryInput(search: string): QueryInput {
  const out: QueryInput = Object.create(null);
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (typeof seen === 'string') out[name] = [seen, value];
    else seen.push(value);
  }
  return out;
}

/** The query string of a request target (`/path?query`), without the `?`; empty when there is none. */
export function searchOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

/** Checks a request target's query by `schema`; InvalidBody names the parameters (never their values). */
export function checkQuery<Q>(schema: ZodType<Q>, url: string): Q {
  const result = schema.safeParse(queryInput(searchOf(url)));
  if (result.success) return result.data;
  const names = [...new Set(result.error.issues.map((i) => String(i.path[0] ?? '(query)')))].slice(0, 8);
  throw new ServiceError('InvalidBody', { message: `invalid query parameters: ${names.join(', ')}` });
}

/**
 * One query parameter that may appear at most once: storable text of at most `max` characters. A repeat arrives
 * as a list and fails the string type, so every schema built from these refuses repeated parameters.
 */
export const queryText = (max: number) => storableText().max(max);

/**
 * A query schema of named parameters, each optional unless its schema says otherwise; parameters it does not name
 * are ignored (links carry extensions and tracking parameters), never refused.
 */
export function queryParams<S extends z.ZodRawShape>(shape: S) {
  return z.object(shape);
}
