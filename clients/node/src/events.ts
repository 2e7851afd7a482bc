// Receiving the service's Security Event Tokens (RFC 8417) by push (RFC 8935): an Express (Connect-style) handler
// that verifies each SET exactly (RS256 under a key of your application's JWK Set, typ secevent+jwt, iss, aud, one
// event), drops a jti it has already seen, hands the event to `onEvent` and answers 202, or 400 with RFC 8935's
// error JSON. A failure of yours (`onEvent` throws) or an unreachable JWK Set answers 5xx: the service retries.
import { parseCompact } from './compact.ts';
import { TokenVerificationError } from './errors.ts';
import type { FetchLike } from './http.ts';
import { KeySet } from './key-set.ts';

export const SET_TYP = 'secevent+jwt';
export const SET_CONTENT_TYPE = 'application/secevent+jwt';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
/** The events the service sends, by their event-type URI. */
export const SECURITY_EVENT_TYPES = {
  'session-revoked': `${CAEP}session-revoked`,
  'credential-change': `${CAEP}credential-change`,
  'account-disabled': `${RISC}account-disabled`,
  'account-enabled': `${RISC}account-enabled`,
  'identifier-changed': `${RISC}identifier-changed`,
} as const;
export type SecurityEventName = keyof typeof SECURITY_EVENT_TYPES;

/** One verified event. */
export interface SecurityEvent {
  /** session-revoked, credential-change, ...; undefined for an event type this SDK does not know. */
  name: SecurityEventName | undefined;
  /** The event-type URI. */
  type: string;
  /** The pairwise subject (for identifier-changed: the old one, no longer issued). */
  subject: string;
  /** session-revoked: the session (the tokens' sid) and why. */
  sid?: string;
  reason?: string;
  jti: string;
  /** Shared by the events of one change. */
  txn?: string;
  iat: number;
  /** The event's own members as sent. */
  event: Record<string, unknown>;
}

/** RFC 8935 section 2.4's error codes. */
export type SetErrorCode =
  | 'invalid_request'
  | 'invalid_key'
  | 'invalid_issuer'
  | 'invalid_audience'
  | 'authentication_failed'
  | 'access_denied';

/** Where seen jtis are kept: the default is this process's memory; with replicas pass one they share. */
export interface SeenJtiStore {
  has(jti: string): boolean | Promise<boolean>;
  add(jti: string): void | Promise<void>;
}

/** A bounded in-memory store: the oldest jti leaves once `max` are kept. */
export function memoryJtiStore(max = 10_000): SeenJtiStore {
  const seen = new Set<string>();
  return {
    has: (jti) => seen.has(jti),
    add(jti) {
      seen.add(jti);
      if (seen.size > max) seen.delete(seen.values().next().value as string);
    },
  };
}

export interface EventReceiverOptions {
  /** The session host's origin (SESSION_URL): the JWK Set is fetched from here, never from a token. */
  sessionUrl: string;
  /** Your application's anchor: the only `aud` accepted. */
  applicationAnchor: string;
  /** The service's issuer (ISSUER_URL): the only `iss` accepted. */
  issuer: string;
  /** Called once per new event; throw to have the service send it again. */
  onEvent(event: SecurityEvent): unknown;
  seen?: SeenJtiStore;
  /** Largest body read (default 64 KiB). */
  maxBodyBytes?: number;
  fetch?: FetchLike;
  now?: () => number;
}

class SetRefusal extends Error {
  constructor(
    readonly code: SetErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  on(event: 'data', cb: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'error', cb: (err?: Error) => void): unknown;
}
interface ResponseLike {
  status(code: number): ResponseLike;
  set(name: string, value: string): ResponseLike;
  json(body: unknown): unknown;
  end(): unknown;
}

// Web-standard bytes (Uint8Array, TextDecoder), not Node's Buffer: the package builds with no Node type definitions.
const utf8 = new TextDecoder();

function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

function readBody(req: RequestLike, max: number): Promise<string> {
  if (typeof req.body === 'string') return Promise.resolve(req.body);
  if (req.body instanceof Uint8Array) return Promise.resolve(utf8.decode(req.body));
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on('data', (c: Uint8Array) => {
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    req.on('end', () =>
      size > max
        ? reject(new SetRefusal('invalid_request', 'the body is too large'))
        : resolve(utf8.decode(joinChunks(chunks, size))),
    );
    req.on('error', (err) => reject(err));
  });
}

/** Verifies one SET; throws SetRefusal, or TokenVerificationError('KeySetUnavailable'). */
export async function verifySecurityEvent(
  token: string,
  opts: Pick<EventReceiverOptions, 'applicationAnchor' | 'issuer'>,
  keySet: KeySet,
): Promise<SecurityEvent> {
  let parts: ReturnType<typeof parseCompact>;
  try {
    parts = parseCompact(token.trim());
  } catch {
    throw new SetRefusal('invalid_request', 'not a compact RS256 JWS with alg, kid and typ');
  }
  if (parts.typ !== SET_TYP) throw new SetRefusal('invalid_request', 'typ must be secevent+jwt');
  const key = await keySet.keyFor(parts.kid).catch((cause: unknown) => {
    throw new TokenVerificationError('KeySetUnavailable', 'the JWK Set could not be fetched', { cause });
  });
  if (!key) throw new SetRefusal('invalid_key', 'no key of the application has this kid');
  if (!(await key.verify(parts.signingInput, parts.signature)))
    throw new SetRefusal('invalid_key', 'the signature does not verify');
  const c = parts.payload;
  if (c.iss !== opts.issuer) throw new SetRefusal('invalid_issuer', 'iss is not the service');
  if (c.aud !== opts.applicationAnchor)
    throw new SetRefusal('invalid_audience', 'aud is not this application');
  if (typeof c.jti !== 'string' || !c.jti || typeof c.iat !== 'number')
    throw new SetRefusal('invalid_request', 'jti and iat are required');
  const events = c.events;
  if (typeof events !== 'object' || events === null || Array.isArray(events))
    throw new SetRefusal('invalid_request', 'events must be an object');
  const entries = Object.entries(events as Record<string, unknown>);
  if (entries.length !== 1) throw new SetRefusal('invalid_request', 'exactly one event is expected');
  const [type, event] = entries[0]!;
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new SetRefusal('invalid_request', 'the event must be an object');
  const member = event as Record<string, unknown>;
  const subject = member.subject as { format?: unknown; id?: unknown } | undefined;
  if (subject?.format !== 'opaque' || typeof subject.id !== 'string')
    throw new SetRefusal('invalid_request', 'the event needs an opaque subject');
  const name = (Object.keys(SECURITY_EVENT_TYPES) as SecurityEventName[]).find(
    (n) => SECURITY_EVENT_TYPES[n] === type,
  );
  return {
    name,
    type,
    subject: subject.id,
    ...(typeof member.sid === 'string' ? { sid: member.sid } : {}),
    ...(typeof member.reason === 'string' ? { reason: member.reason } : {}),
    jti: c.jti,
    ...(typeof c.txn === 'string' ? { txn: c.txn } : {}),
    iat: c.iat,
    event: member,
  };
}

/**
 * `app.post('/security-events', createEventReceiver({ sessionUrl, applicationAnchor, issuer, onEvent }))`: mount it
 * before any body parser for that path (or after express.text({ type: 'application/secevent+jwt' })).
 */
export function createEventReceiver(opts: EventReceiverOptions) {
  const keySet = new KeySet({
    sessionUrl: opts.sessionUrl,
    applicationAnchor: opts.applicationAnchor,
    transport: { fetch: opts.fetch ?? ((input, init) => fetch(input, init)), timeoutMs: 10_000 },
    now: opts.now ?? Date.now,
  });
  const seen = opts.seen ?? memoryJtiStore();
  const max = opts.maxBodyBytes ?? 65_536;
  const refuse = (res: ResponseLike, code: SetErrorCode, description: string) =>
    res.status(400).set('cache-control', 'no-store').json({ err: code, description });

  return async (req: RequestLike, res: ResponseLike, next: (err?: unknown) => void): Promise<void> => {
    try {
      const type = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (type !== SET_CONTENT_TYPE)
        return void refuse(res, 'invalid_request', `Content-Type must be ${SET_CONTENT_TYPE}`);
      const event = await verifySecurityEvent(await readBody(req, max), opts, keySet);
      if (!(await seen.has(event.jti))) {
        await opts.onEvent(event);
        await seen.add(event.jti);
      }
      res.status(202).end();
    } catch (err) {
      if (err instanceof SetRefusal) return void refuse(res, err.code, err.description);
      if (err instanceof TokenVerificationError && err.reason === 'KeySetUnavailable') {
        res.status(503).set('retry-after', '5').end();
        return;
      }
      next(err);
    }
  };
}
