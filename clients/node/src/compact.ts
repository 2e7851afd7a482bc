// Takes a compact JWS apart without trusting it: base64url as jose decodes it (whitespace skipped, `=` padding
// completing a quantum allowed, spare bits ignored, a length of 4n+1 refused), UTF-8 JSON objects only (invalid
// UTF-8 refused, a leading BOM dropped), and a protected header of exactly `alg`, `kid` and `typ`, as the hosts'
// own verification reads application tokens (anything else in it, `crit`, `jku`, `x5u`, ..., is refused).
import { TokenVerificationError } from './errors.ts';

export interface CompactParts {
  /** `header.payload`, the bytes the signature covers. */
  signingInput: Uint8Array<ArrayBuffer>;
  signature: Uint8Array<ArrayBuffer>;
  kid: string;
  /** Canonical: lower case, without `application/` (RFC 7515 4.1.9). */
  typ: string;
  payload: Record<string, unknown>;
}

const PLAIN_BASE64URL = /^[A-Za-z0-9_-]*$/;
const ASCII_WHITESPACE = /[\t\n\f\r ]/g;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const ASCII = new TextEncoder();
const HEADER_MEMBERS = new Set(['alg', 'kid', 'typ']);

const malformed = (detail: string) => new TokenVerificationError('TokenMalformed', detail);

function decodeSegment(segment: string): Uint8Array<ArrayBuffer> {
  let s = segment;
  if (!PLAIN_BASE64URL.test(s)) {
    s = s.replace(ASCII_WHITESPACE, '');
    if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
    if (!PLAIN_BASE64URL.test(s)) throw malformed('encoding');
  }
  if (s.length % 4 === 1) throw malformed('encoding');
  const binary = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function decodeObject(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(UTF8.decode(decodeSegment(segment)));
  } catch (err) {
    if (err instanceof TokenVerificationError) throw err;
    throw malformed('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed('not an object');
  return value as Record<string, unknown>;
}

export function canonicalTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** Splits and decodes a compact JWS; the header must be an RS256 application token's. Nothing is verified here. */
export function parseCompact(token: string): CompactParts {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first < 0 || second < 0 || token.indexOf('.', second + 1) !== -1) throw malformed('not a compact JWS');
  const header = decodeObject(token.slice(0, first));
  const payload = decodeObject(token.slice(first + 1, second));
  const signature = decodeSegment(token.slice(second + 1));
  const { alg, kid, typ } = header;
  const onlyKnownMembers = Object.keys(header).every((member) => HEADER_MEMBERS.has(member));
  if (alg !== 'RS256' || !onlyKnownMembers) throw malformed('header');
  if (typeof kid !== 'string' || kid === '' || typeof typ !== 'string') throw malformed('header');
  return {
    signingInput: ASCII.encode(token.slice(0, second)),
    signature,
    kid,
    typ: canonicalTyp(typ),
    payload,
  };
}
