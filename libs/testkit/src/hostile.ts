// The hostile-input suite's kit: seeded fast-check arbitraries that mutate a genuine request (transport, bytes,
// JSON structure and values), a prober that sends them raw and checks every answer (no 5xx, no stack trace, no
// internal id), and the tally that RELIABILITY.md reports. FUZZ_SEED replays a run; FUZZ_RUNS scales it.
import { isDeepStrictEqual } from 'node:util';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Db } from '@svc/db';
import type { Redis } from '@svc/platform';
import fc from 'fast-check';
import { type RawAnswer, sendRaw } from './raw-request';

// CI replays one fixed seed, so a submission passes or fails on its code alone; local runs explore a fresh seed each.
export const FUZZ_SEED = Number(
  process.env.FUZZ_SEED ?? (process.env.CI ? 20261122 : Math.floor(Math.random() * 2 ** 31)),
);
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 40);

/** fast-check parameters of every property: the logged seed, bounded runs, no shrinking past a few seconds. */
export function fuzzParams(runs = FUZZ_RUNS): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: runs, interruptAfterTimeLimit: 20_000, endOnFailure: true };
}

export interface Probe {
  label: string;
  headers: Record<string, string>;
  body: Buffer | string | Array<Buffer | string>;
}

export interface Tally {
  tried: number;
  serverErrors: number;
  leaks: number;
  cut: number;
  /** Statuses seen, for the summary line. */
  statuses: Record<string, number>;
}

export function newTally(): Tally {
  return { tried: 0, serverErrors: 0, leaks: 0, cut: 0, statuses: {} };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const LEAK =
  /\n\s+at |Error:|prisma|node_modules|invalid byte sequence|ECONN|stack|\bSELECT\b|\bINSERT\b|ioredis/i;

/** What is wrong with one answer, or undefined when it is a clean refusal (or an allowed cut). */
export function judgeAnswer(answer: RawAnswer, opts: { mayCut?: boolean; internalIds?: string[] } = {}) {
  if (answer.status === 0) return opts.mayCut ? undefined : `no answer (${answer.error})`;
  if (answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  const errorBody = answer.status >= 400;
  const leaked = errorBody ? (LEAK.exec(answer.text) ?? UUID.exec(answer.text)) : null;
  if (leaked) return `leak of ${JSON.stringify(leaked[0])}: ${answer.text.slice(0, 200)}`;
  for (const id of opts.internalIds ?? [])
    if (answer.text.includes(id)) return `internal id in ${answer.text}`;
  return undefined;
}

/** Sends a probe, counts it, and throws (failing the property, with the seed) on a bad answer. */
export async function sendProbe(
  tally: Tally,
  url: string,
  probe: Probe,
  opts: { method?: string; mayCut?: boolean; internalIds?: string[]; allow2xx?: boolean } = {},
): Promise<RawAnswer> {
  const answer = await sendRaw(url, {
    method: opts.method ?? 'POST',
    headers: probe.headers,
    body: probe.body,
  });
  tally.tried++;
  tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1;
  if (answer.status === 0) tally.cut++;
  if (answer.status >= 500) tally.serverErrors++;
  const problem = judgeAnswer(answer, opts);
  if (problem) {
    if (!problem.startsWith('status')) tally.leaks++;
    throw new Error(`${probe.label} -> ${problem}`);
  }
  if (!opts.allow2xx && answer.status >= 200 && answer.status < 300) {
    throw new Error(`${probe.label} -> a hostile request was accepted: ${answer.text.slice(0, 200)}`);
  }
  return answer;
}

const JSON_TYPE = 'application/json';

/** Values that break types, ranges, storage and parsers. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(
      null,
      true,
      0,
      -1,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      0.1,
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfffy',
      '\uffff\ufffe',
      '𝔘\u200b\u202e',
      '%00',
      '../../etc/passwd',
      "'; DROP TABLE sessions; --",
      '{"$ne":null}',
      'x'.repeat(70_000),
      [],
      {},
      { __proto__: { polluted: true } },
    ),
    fc.string({ unit: 'binary', maxLength: 64 }),
    fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udc00', 'a', '"', '\\'), maxLength: 16 }),
  );
}

function insertAt(text: string, at: number, what: string): string {
  const i = text.length === 0 ? 0 : at % (text.length + 1);
  return text.slice(0, i) + what + text.slice(i);
}

/** A member list `"k":v` of the genuine body, as JSON text without braces. */
function members(valid: Record<string, unknown>): string[] {
  return Object.entries(valid).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
}

/** Byte- and text-level mutations of the genuine JSON body: truncated, flipped, injected, re-shaped. */
export function mutatedJson(
  valid: Record<string, unknown>,
): fc.Arbitrary<{ label: string; body: Buffer | string }> {
  const text = JSON.stringify(valid);
  const keys = Object.keys(valid);
  const key = fc.constantFrom(...(keys.length ? keys : ['x']));
  const bytes = Buffer.from(text);
  return fc.oneof(
    fc.nat().map((n) => ({ label: `truncated at ${n % text.length}`, body: text.slice(0, n % text.length) })),
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => {
      const b = Buffer.from(bytes);
      b[at % b.length] = byte;
      return { label: `byte ${at % b.length} set to ${byte}`, body: b };
    }),
    fc
      .tuple(
        fc.nat(),
        fc.constantFrom(
          '\u0000',
          '\\u0000',
          '\\ud800',
          '\\udfff',
          '"',
          '{',
          '[',
          ',',
          '\\',
          '\uFEFF',
          '\n',
          'ÿ',
        ),
      )
      .map(([at, what]) => ({ label: `${JSON.stringify(what)} inserted`, body: insertAt(text, at, what) })),
    fc
      .tuple(
        fc.nat(),
        fc.constantFrom(
          Buffer.from([0xff]),
          Buffer.from([0xc0, 0x80]),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.from([0xe2, 0x82]),
        ),
      )
      .map(([at, raw]) => {
        const i = at % (bytes.length + 1);
        return {
          label: `invalid UTF-8 ${raw.toString('hex')} at ${i}`,
          body: Buffer.concat([bytes.subarray(0, i), raw, bytes.subarray(i)]),
        };
      }),
    fc.tuple(key, hostileValue()).map(([k, v]) => ({
      label: `${k} = ${JSON.stringify(v)?.slice(0, 40)}`,
      body: JSON.stringify({ ...valid, [k]: v }),
    })),
    fc
      .tuple(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'X'),
        hostileValue(),
      )
      .map(([k, v]) => ({
        label: `extra member ${k}`,
        body: `{${[...members(valid), `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`].join(',')}}`,
      })),
    fc.tuple(key, hostileValue(), fc.boolean()).map(([k, v, first]) => {
      const dup = `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`;
      const list = first ? [...members(valid), dup] : [dup, ...members(valid)];
      return { label: `duplicate ${k} (${first ? 'last' : 'first'})`, body: `{${list.join(',')}}` };
    }),
    key.map((k) => {
      const { [k]: _gone, ...rest } = valid;
      return { label: `without ${k}`, body: JSON.stringify(rest) };
    }),
    fc
      .tuple(key, fc.integer({ min: 50, max: 100_000 }), fc.constantFrom('[', '{"a":'))
      .map(([k, depth, open]) => {
        const close = open === '[' ? ']' : '}';
        const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
        return { label: `${k} nested ${depth} deep in ${open}`, body: `{${JSON.stringify(k)}:${nested}}` };
      }),
    fc
      .tuple(
        key,
        fc.constantFrom(
          '1e999',
          '-1e999',
          `1${'0'.repeat(400)}`,
          '9007199254740993',
          '-0',
          '1E+2',
          '0.1e-999',
          '18446744073709551616',
          'NaN',
          'Infinity',
          '0x10',
          '01',
        ),
      )
      .map(([k, n]) => ({
        label: `${k} = ${n.slice(0, 20)}`,
        body: `{${[...members({ ...valid, [k]: 0 }).filter((m) => !m.startsWith(JSON.stringify(k))), `${JSON.stringify(k)}:${n}`].join(',')}}`,
      })),
    fc
      .constantFrom(
        '',
        'null',
        'true',
        '1',
        '"x"',
        '[]',
        `[${text}]`,
        `${text}${text}`,
        `${text} trailing`,
        '{',
        '}',
        '{}',
      )
      .map((b) => ({ label: `body ${b.slice(0, 20)}`, body: b })),
  );
}

/** The genuine body sent under other media types, charsets, encodings and framings. */
export function mutatedTransport(valid: Record<string, unknown>): fc.Arbitrary<Probe> {
  const text = JSON.stringify(valid);
  return fc
    .record({
      type: fc.constantFrom(
        undefined,
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/jsonx',
        'application/json-patch+json',
        'application/*',
        '*/*',
        'application/json; charset=utf-8',
        JSON_TYPE,
      ),
      encoding: fc.constantFrom(
        'gzip',
        'deflate',
        'br',
        'x-gzip',
        'compress',
        'gzip, identity',
        'identity, gzip',
        'zstd',
        'GZIP',
        '',
      ),
      corrupt: fc.boolean(),
      chunked: fc.boolean(),
    })
    .filter(
      (r) => !(r.encoding === '' && (r.type === JSON_TYPE || r.type === 'application/json; charset=utf-8')),
    )
    .map((r) => {
      const enc = r.encoding.toLowerCase();
      let body: Buffer = Buffer.from(text);
      if (!r.corrupt && enc.startsWith('gzip')) body = gzipSync(body);
      else if (!r.corrupt && enc === 'deflate') body = deflateSync(body);
      else if (!r.corrupt && enc === 'br') body = brotliCompressSync(body);
      else if (r.corrupt) body = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08]), body]);
      const headers: Record<string, string> = {};
      if (r.type) headers['content-type'] = r.type;
      if (r.encoding) headers['content-encoding'] = r.encoding;
      const framed = r.chunked ? [body.subarray(0, 3), body.subarray(3)] : body;
      return {
        label: `type ${r.type}, encoding ${r.encoding}${r.corrupt ? ' (corrupt)' : ''}${r.chunked ? ', chunked' : ''}`,
        headers,
        body: framed,
      };
    });
}

let bomb: Buffer | undefined;
/** 50 MB of `[` gzipped to about 50 KB, made once per process. */
function gzipBomb(): Buffer {
  bomb ??= gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x5b));
  return bomb;
}

/** Oversized bodies: declared, chunked identity, and chunked gzip of `[` (the 10 MB case of issue 13). */
export function oversizedProbes(limit: number): Probe[] {
  const chunk = '['.repeat(64 * 1024);
  const chunks = (total: number) => Array.from({ length: Math.ceil(total / chunk.length) }, () => chunk);
  return [
    {
      label: 'declared over the limit',
      headers: { 'content-type': JSON_TYPE },
      body: `{"a":"${'x'.repeat(limit)}"}`,
    },
    { label: 'chunked over the limit', headers: { 'content-type': JSON_TYPE }, body: chunks(limit * 4) },
    {
      label: '10 MB of [ chunked as gzip',
      headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
      body: chunks(10 * 1024 * 1024),
    },
    {
      label: 'gzip bomb under the limit',
      headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
      body: gzipBomb(),
    },
  ];
}

/** Summary line of a host's run, printed once so the figures can be copied into RELIABILITY.md. */
export function reportTally(host: string, tally: Tally): void {
  console.log(
    `hostile-input ${host}: seed=${FUZZ_SEED} runs=${FUZZ_RUNS} tried=${tally.tried} 5xx=${tally.serverErrors} leaks=${tally.leaks} cut=${tally.cut} statuses=${JSON.stringify(tally.statuses)}`,
  );
}

/** Whose state a run must leave untouched: rows of one application (and accounts), Redis keys by pattern. */
export interface StateScope {
  applicationId: string;
  accountIds: string[];
  /** SCAN patterns of the replay and rate-limit keys that belong to this test (unique prefixes, real kids). */
  redisPatterns: string[];
}

interface StateDeps {
  db: Db;
  redis: Redis;
}

/**
 * The state refusals must not change, as one comparable value: sessions (count, versions, revocations, status),
 * inquiries (realized, redeemed), errands and device authorizations, and the Redis keys under the patterns.
 */
export async function snapshotState(deps: StateDeps, scope: StateScope): Promise<unknown> {
  const rows = await deps.db.$queryRawUnsafe(
    `SELECT
       (SELECT json_agg(json_build_array(id, current_version, current_jti, status, revoked_at) ORDER BY id)
          FROM sessions WHERE application_id = $1::uuid) AS sessions,
       (SELECT json_agg(json_build_array(id, account_id, realized_at, redeemed_at) ORDER BY id)
          FROM inquiries WHERE application_id = $1::uuid) AS inquiries,
       (SELECT count(*)::int FROM errands WHERE application_id = $1::uuid OR account_id = ANY($2::uuid[])) AS errands,
       (SELECT count(*)::int FROM device_authorizations WHERE application_id = $1::uuid) AS devices,
       (SELECT count(*)::int FROM sessions WHERE account_id = ANY($2::uuid[])) AS account_sessions`,
    scope.applicationId,
    scope.accountIds,
  );
  const keys: string[] = [];
  for (const pattern of scope.redisPatterns) {
    let cursor = '0';
    do {
      const [next, batch] = await deps.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  keys.sort();
  const takenAt = Date.now();
  const read = deps.redis.multi();
  for (const k of keys) read.get(k).pttl(k);
  const answers = keys.length ? ((await read.exec()) ?? []) : [];
  const redis: string[] = [];
  const expiresAt: Record<string, number> = {};
  keys.forEach((k, i) => {
    const ttl = Number(answers[2 * i + 1]?.[1]);
    // -2: the scan saw the key but it lapsed before the read; it is not part of the state any more.
    if (ttl === -2) return;
    redis.push(`${k}=${answers[2 * i]?.[1]}`);
    if (ttl > 0) expiresAt[k] = takenAt + ttl;
  });
  return { rows, redis, expiresAt, takenAt } satisfies StateSnapshot;
}

/** What `snapshotState` returns: the rows, each Redis key as `key=value`, and when each expiring key lapses. */
interface StateSnapshot {
  rows: unknown;
  redis: string[];
  expiresAt: Record<string, number>;
  takenAt: number;
}

function isSnapshot(value: unknown): value is StateSnapshot {
  return typeof value === 'object' && value !== null && 'redis' in value && 'expiresAt' in value;
}

/**
 * Refusals left the state as it was: the same rows, no Redis key added or changed, and a key gone only if it was
 * due to lapse by the second snapshot (replay keys live as long as the token they saw, so a long run under load
 * outlives some). Any other state a test's `state` returns must be equal.
 */
export function expectStateKept(after: unknown, before: unknown): void {
  if (!isSnapshot(after) || !isSnapshot(before)) {
    expect(after).toEqual(before);
    return;
  }
  expect(after.rows).toEqual(before.rows);
  const was = new Set(before.redis);
  expect(after.redis.filter((entry) => !was.has(entry))).toEqual([]);
  const now = new Set(after.redis.map((entry) => entry.slice(0, entry.indexOf('='))));
  const vanished = before.redis
    .map((entry) => entry.slice(0, entry.indexOf('=')))
    .filter((k) => !now.has(k) && !((before.expiresAt[k] ?? Infinity) <= after.takenAt + 1000));
  expect(vanished).toEqual([]);
}

/** One JSON endpoint under fuzzing: its URL, a genuine body, its body limit, and how a caller authenticates. */
export interface HostileEndpoint {
  url: string;
  valid: Record<string, unknown>;
  limit: number;
  /** Headers for these exact body bytes (e.g. a ClientAuth JWT whose requestHash binds them). */
  headers?: (body: Buffer) => Promise<Record<string, string>> | Record<string, string>;
  /** A read-only endpoint may answer 200 to a mutated body that is still valid (e.g. another locale). */
  allow2xx?: boolean;
}

export interface HostileContext {
  tally: Tally;
  /** The state refusals must leave as it was (see `snapshotState`). */
  state: () => Promise<unknown>;
  /** Ids that must never appear in an answer (application, account, session ids). */
  internalIds: string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * True when the bytes parse to exactly the genuine body (say a duplicate member whose last value is the genuine one:
 * JSON.parse keeps the last): the request is then genuine, not hostile.
 */
function sameAsGenuine(bytes: Buffer, valid: Record<string, unknown>): boolean {
  try {
    const parsed = JSON.parse(utf8.decode(bytes));
    return isDeepStrictEqual(parsed, valid);
  } catch {
    return false;
  }
}

/**
 * Mutation fuzzing of one endpoint's body (bytes, structure, values), then its transport (media types, charsets,
 * encodings, chunking), then oversized bodies; every answer judged, and the state compared before and after.
 */
export async function fuzzBodies(ctx: HostileContext, ep: HostileEndpoint, runs = FUZZ_RUNS): Promise<void> {
  const before = await ctx.state();
  const opts = (size: number) => ({
    internalIds: ctx.internalIds,
    mayCut: size > ep.limit,
    allow2xx: ep.allow2xx,
  });
  await fc.assert(
    fc.asyncProperty(mutatedJson(ep.valid), async (m) => {
      const bytes = Buffer.from(m.body);
      if (sameAsGenuine(bytes, ep.valid)) return;
      const headers = { 'content-type': JSON_TYPE, ...(await ep.headers?.(bytes)) };
      await sendProbe(ctx.tally, ep.url, { label: m.label, headers, body: bytes }, opts(bytes.length));
    }),
    fuzzParams(runs),
  );
  await transportProbes(ctx, ep, Math.ceil(runs / 2));
  expectStateKept(await ctx.state(), before);
}

async function transportProbes(ctx: HostileContext, ep: HostileEndpoint, runs: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(mutatedTransport(ep.valid), async (p) => {
      const bytes = Array.isArray(p.body)
        ? Buffer.concat(p.body.map((b) => Buffer.from(b)))
        : Buffer.from(p.body);
      const headers = { ...p.headers, ...(await ep.headers?.(bytes)) };
      await sendProbe(
        ctx.tally,
        ep.url,
        { ...p, headers },
        { internalIds: ctx.internalIds, mayCut: bytes.length > ep.limit },
      );
    }),
    fuzzParams(runs),
  );
  for (const p of oversizedProbes(ep.limit)) {
    const headers = { ...p.headers, ...(await ep.headers?.(Buffer.alloc(0))) };
    await sendProbe(ctx.tally, ep.url, { ...p, headers }, { internalIds: ctx.internalIds, mayCut: true });
  }
}

/**
 * The genuine body under every other media type, charset, encoding and framing, and oversized: all refused as
 * InvalidBody before anything else runs, so not even a rate-limit point may be spent (`ctx.state` says which).
 */
export async function fuzzTransport(
  ctx: HostileContext,
  ep: HostileEndpoint,
  runs = FUZZ_RUNS,
): Promise<void> {
  const before = await ctx.state();
  await transportProbes(ctx, ep, runs);
  expectStateKept(await ctx.state(), before);
}

/** Sends every forged JWS through `present` (body or header); none may be accepted, nothing may change. */
export async function fuzzForgeries(
  ctx: HostileContext,
  url: string,
  forged: Array<{ trick: string; jws: string }>,
  present: (jws: string) => Omit<Probe, 'label'>,
  method = 'POST',
): Promise<void> {
  const before = await ctx.state();
  for (const f of forged) {
    await sendProbe(
      ctx.tally,
      url,
      { label: `forged JWS: ${f.trick}`, ...present(f.jws) },
      {
        method,
        internalIds: ctx.internalIds,
      },
    );
  }
  expectStateKept(await ctx.state(), before);
}
