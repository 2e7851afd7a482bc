// Server-side browser sessions for sign-in pages (connect now, device and OIDC next): the host issues every
// session identifier, keeps the session as one Redis hash under the identifier's SHA-256, rotates the identifier
// at every change of privilege (the old one stops working at once), and counts guesses atomically.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from './clock';

/** 256 random bits, base64url: the only shape of identifier a session cookie may carry. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * On a Redis Cluster, a session's key carries its identifier's first LINEAGE characters as a hash tag, and a
 * rotation keeps them: the old and the new key share a slot, so one script can move the session (else CROSSSLOT).
 * The other 39 characters (234 bits) are fresh at every rotation.
 */
const LINEAGE = 4;

function nextInLineage(id: string): string {
  return (
    id.slice(0, LINEAGE) +
    randomBytes(30)
      .toString('base64url')
      .slice(0, 43 - LINEAGE)
  );
}

/**
 * The session cookie's name and attributes. Over HTTPS the name carries the `__Host-` prefix, so the browser
 * accepts it only with Secure, Path=/ and no Domain: a sibling subdomain or a plain-HTTP hop cannot plant one.
 * On loopback HTTP (development, tests) the plain name is used.
 */
export function sessionCookie(baseName: string, httpsOrigin: boolean, secure = httpsOrigin) {
  return {
    name: httpsOrigin ? `__Host-${baseName}` : baseName,
    options: { httpOnly: true, sameSite: 'lax' as const, secure: secure || httpsOrigin, path: '/' },
  };
}

// Writes only while the session exists, so a request still holding a rotated or expired identifier cannot
// bring it back to life; each write renews the idle lifetime.
const WRITE = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1`;

// Moves the whole session to a new identifier; fails when the old one is gone (already rotated or expired).
const ROTATE = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 1`;

// Reads and removes one field (single-use values such as WebAuthn challenges).
const TAKE = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then redis.call('HDEL', KEYS[1], ARGV[1]) end
return v`;

// Removes a field only while it still holds the expected value (consuming one code, not a newer one).
const TAKE_IF = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1]) return 1 end
return 0`;

// Counts one guess BEFORE the caller compares: increments the counter of a guarded value and returns the
// count with the value. Past `max` the value is deleted, so no later guess (right or wrong) can match it.
const GUESS = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return nil end
local n = redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
if n >= tonumber(ARGV[3]) then redis.call('HDEL', KEYS[1], ARGV[1]) end
if n > tonumber(ARGV[3]) then return nil end
return {n, v}`;

export interface Guess {
  /** This guess's number, 1-based; the value is already deleted when this is the last allowed one. */
  attempt: number;
  value: string;
}

export interface BrowserSessionStore {
  /** Creates a session and returns its identifier (never stored; only its SHA-256 names the record). */
  issue(): Promise<string>;
  /** True only for a well-formed identifier this host issued that has neither expired nor been rotated away. */
  isIssued(id: string): Promise<boolean>;
  read(id: string, field: string): Promise<string | undefined>;
  /** Sets fields while the session exists; false when it is gone (rotated or expired). */
  write(id: string, fields: Record<string, string>): Promise<boolean>;
  remove(id: string, ...fields: string[]): Promise<void>;
  take(id: string, field: string): Promise<string | undefined>;
  takeIf(id: string, field: string, expected: string): Promise<boolean>;
  /** Counts a guess against the value in `field` (counter in `counterField`), at most `max` per value. */
  guess(id: string, field: string, counterField: string, max: number): Promise<Guess | undefined>;
  /** Moves the session to a fresh identifier; the old one stops working. Undefined when the old one is gone. */
  rotate(id: string): Promise<string | undefined>;
  /** Ends the session (sign-out): the identifier stops working. */
  end(id: string): Promise<void>;
}

export function createBrowserSessionStore(
  redis: Redis,
  /** `clock`: the host's clock; a session records when it was issued (its first field: a hash needs one). */
  opts: { namespace: string; ttlSeconds: number; clock: Clock },
): BrowserSessionStore {
  const digest = (id: string) => createHash('sha256').update(id).digest('hex');
  // A single server or Sentinel keeps the key form it always had.
  const key = redis.isCluster
    ? (id: string) => `${opts.namespace}:session:{${id.slice(0, LINEAGE)}}:${digest(id)}`
    : (id: string) => `${opts.namespace}:session:${digest(id)}`;
  const valid = (id: string) => SESSION_ID.test(id);
  const ttl = String(opts.ttlSeconds);
  return {
    async issue() {
      const id = newSessionId();
      await redis.multi().hset(key(id), '_', String(opts.clock())).expire(key(id), opts.ttlSeconds).exec();
      return id;
    },
    async isIssued(id) {
      return valid(id) && (await redis.exists(key(id))) === 1;
    },
    async read(id, field) {
      if (!valid(id)) return undefined;
      return (await redis.hget(key(id), field)) ?? undefined;
    },
    async write(id, fields) {
      if (!valid(id)) return false;
      const args = Object.entries(fields).flat();
      if (!args.length) return (await redis.exists(key(id))) === 1;
      return (await redis.eval(WRITE, 1, key(id), ttl, ...args)) === 1;
    },
    async remove(id, ...fields) {
      if (valid(id) && fields.length) await redis.hdel(key(id), ...fields);
    },
    async take(id, field) {
      if (!valid(id)) return undefined;
      return ((await redis.eval(TAKE, 1, key(id), field)) as string | null) ?? undefined;
    },
    async takeIf(id, field, expected) {
      if (!valid(id)) return false;
      return (await redis.eval(TAKE_IF, 1, key(id), field, expected)) === 1;
    },
    async guess(id, field, counterField, max) {
      if (!valid(id)) return undefined;
      const r = (await redis.eval(GUESS, 1, key(id), field, counterField, String(max))) as
        | [number, string]
        | null;
      return r ? { attempt: Number(r[0]), value: r[1] } : undefined;
    },
    async rotate(id) {
      if (!valid(id)) return undefined;
      const next = redis.isCluster ? nextInLineage(id) : newSessionId();
      return (await redis.eval(ROTATE, 2, key(id), key(next), ttl)) === 1 ? next : undefined;
    },
    async end(id) {
      if (valid(id)) await redis.del(key(id));
    },
  };
}
