// int64 identifiers on the wire and in the admin (the spec's platformAppId): one rule for both, the full range
// 1..2^63-1 kept exactly as bigint. JSON numbers above 2^53-1 lose precision in JSON.parse, so an integer member is
// read back from the request's own bytes.

export const INT64_MAX = 9_223_372_036_854_775_807n;

/** A positive int64 in canonical decimal: digits only, no sign, no leading zero. */
const POSITIVE_DECIMAL = /^[1-9][0-9]{0,18}$/;

/** The value of a canonical decimal from 1 to 2^63-1, else undefined. */
export function parsePositiveInt64(text: string): bigint | undefined {
  if (!POSITIVE_DECIMAL.test(text)) return undefined;
  const n = BigInt(text);
  return n <= INT64_MAX ? n : undefined;
}

/**
 * A positive int64 member of a JSON body given as a decimal string or as an integer: `parsed` is the member as
 * JSON.parse gave it, `raw` the body's bytes (to recover the exact digits of an integer past 2^53-1). Undefined
 * when it is neither, or outside 1..2^63-1.
 */
export function positiveInt64Member(parsed: unknown, raw: Buffer | string, key: string): bigint | undefined {
  if (typeof parsed === 'string') return parsePositiveInt64(parsed);
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < 1) return undefined;
  if (Number.isSafeInteger(parsed)) return BigInt(parsed);
  const source = topLevelMemberSource(typeof raw === 'string' ? raw : raw.toString('utf8'), key);
  return source === undefined ? undefined : parsePositiveInt64(source);
}

const WS = new Set([' ', '\t', '\n', '\r']);

function skipWs(s: string, i: number): number {
  while (i < s.length && WS.has(s[i]!)) i++;
  return i;
}

/** The index after the string literal starting at `i` (a `"`). */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  return s.length;
}

/** The index after the JSON value starting at `i`. */
function valueEnd(s: string, i: number): number {
  if (s[i] === '"') return stringEnd(s, i);
  if (s[i] === '{' || s[i] === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const c = s[j];
      if (c === '"') j = stringEnd(s, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return j + 1;
    }
    return s.length;
  }
  let j = i;
  while (j < s.length && s[j] !== ',' && s[j] !== '}' && s[j] !== ']' && !WS.has(s[j]!)) j++;
  return j;
}

/**
 * The source text of a top-level member's value in a JSON object text already accepted by JSON.parse; the last
 * occurrence wins, as in JSON.parse. Member names are compared after unescaping.
 */
export function topLevelMemberSource(json: string, key: string): string | undefined {
  let i = skipWs(json, 0);
  if (json[i] !== '{') return undefined;
  let found: string | undefined;
  i = skipWs(json, i + 1);
  while (i < json.length && json[i] === '"') {
    const nameEnd = stringEnd(json, i);
    const name = JSON.parse(json.slice(i, nameEnd)) as string;
    i = skipWs(json, skipWs(json, nameEnd) + 1); // past the ':'
    const end = valueEnd(json, i);
    if (name === key) found = json.slice(i, end);
    i = skipWs(json, end);
    if (json[i] !== ',') break;
    i = skipWs(json, i + 1);
  }
  return found;
}
