// The hash chain: canonical JSON, each row's hash over the previous row's hash and its own canonical JSON, sealing
// new rows onto the head, and the walk that checks a stretch of rows (audit verify).
import { createHash, randomUUID } from 'node:crypto';
import { type AuditChanges, type AuditContext, type AuditEntry, type AuditEvent, REDACTED } from './types';

/** The first row's prev_hash: 64 zeros (the migration's genesis head). */
export const GENESIS_HASH = '0'.repeat(64);

/** The action of the row a retention sweep writes (its changes anchor the first kept row, see verifyChain). */
export const RETENTION_ACTION = 'audit.retention';

/** Field names whose values are never recorded, whatever a caller passes: only REDACTED (or null) is kept. */
const SECRET_FIELD = /secret|hash|password|private|sealed|passphrase|credential_?id/i;

/**
 * JSON with object members sorted by name at every depth, no whitespace: the same bytes for the same value wherever
 * it was read from (jsonb reorders members).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  const members = Object.keys(value as object)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${members.join(',')}}`;
}

/**
 * The changes as stored: plain JSON (bigints as decimal strings, dates as ISO strings, undefined as null) and every
 * secret-named field redacted, so a caller's slip never writes a secret into the trail.
 */
export function normalizeChanges(changes: AuditChanges | undefined): AuditChanges {
  const plain = JSON.parse(
    JSON.stringify(changes ?? {}, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
  ) as Record<string, { from?: unknown; to?: unknown }>;
  const out: AuditChanges = {};
  for (const [field, change] of Object.entries(plain)) {
    const from = change?.from ?? null;
    const to = change?.to ?? null;
    out[field] = SECRET_FIELD.test(field)
      ? { from: from === null ? null : REDACTED, to: to === null ? null : REDACTED }
      : { from, to };
  }
  return out;
}

/** Everything a row's hash covers: every member but the hash itself. */
export function hashedPart(e: AuditEvent): Omit<AuditEvent, 'hash'> {
  const { hash: _hash, ...rest } = e;
  return rest;
}

/** SHA-256 (hex) over the previous row's hash, a newline, and this row's canonical JSON without its hash. */
export function hashEvent(e: Omit<AuditEvent, 'hash'>): string {
  return createHash('sha256')
    .update(`${e.prevHash}\n${canonicalJson({ ...e, hash: undefined })}`)
    .digest('hex');
}

/** The rows that `entries` become when appended after `head`, in order, each chained to the one before. */
export function sealEvents(
  head: { seq: bigint; hash: string },
  context: AuditContext,
  entries: readonly AuditEntry[],
  at: Date,
): AuditEvent[] {
  let { seq, hash } = head;
  return entries.map((entry) => {
    seq += 1n;
    const part: Omit<AuditEvent, 'hash'> = {
      seq: seq.toString(),
      id: randomUUID(),
      at: at.toISOString(),
      actor: {
        kind: context.actor.kind,
        id: context.actor.id,
        name: context.actor.name ?? null,
      },
      action: entry.action,
      target: { type: entry.target.type, id: entry.target.id },
      changes: normalizeChanges(entry.changes),
      requestId: context.requestId ?? null,
      sourceAddress: context.sourceAddress ?? null,
      userAgent: context.userAgent ?? null,
      prevHash: hash,
    };
    hash = hashEvent(part);
    return { ...part, hash };
  });
}

/** The outcome of a walk: every row held, or the first one that did not and why. */
export type ChainVerdict =
  | { ok: true; verified: number }
  | { ok: false; verified: number; broken: { seq: string; id: string; problem: string } };

/**
 * Checks rows given oldest first (the whole remaining trail) against the chain head. The first row is anchored by
 * GENESIS_HASH at seq 1, or by a retention row further on whose changes name it (`firstSeq.to` = its seq and
 * `anchor.to` = its prev_hash). Every later row must follow its predecessor by one seq and chain to its hash, and
 * every row's hash must be its content's. The last row must be the head (no row removed from the new end).
 */
export class ChainWalk {
  private verified = 0;
  private previous: AuditEvent | undefined;
  private first: AuditEvent | undefined;
  private anchors = new Map<string, string>();
  private broken: { seq: string; id: string; problem: string } | undefined;

  /** Feeds the next row (oldest first); false once a row has failed (stop reading). */
  add(e: AuditEvent): boolean {
    if (this.broken) return false;
    const fail = (problem: string) => {
      this.broken = { seq: e.seq, id: e.id, problem };
      return false;
    };
    if (hashEvent(hashedPart(e)) !== e.hash) return fail('its hash does not match its content');
    if (this.previous) {
      if (BigInt(e.seq) !== BigInt(this.previous.seq) + 1n)
        return fail(`it follows seq ${this.previous.seq}: a row is missing before it`);
      if (e.prevHash !== this.previous.hash) return fail("its prev_hash is not the previous row's hash");
    } else {
      this.first = e;
    }
    if (e.action === RETENTION_ACTION) {
      const first = e.changes.firstSeq?.to;
      const anchor = e.changes.anchor?.to;
      if (typeof first === 'string' && typeof anchor === 'string') this.anchors.set(first, anchor);
    }
    this.previous = e;
    this.verified += 1;
    return true;
  }

  /** The verdict once every row was fed; `head` is the chain head row (seq and hash of the last append). */
  finish(head: { seq: bigint; hash: string }): ChainVerdict {
    if (this.broken) return { ok: false, verified: this.verified, broken: this.broken };
    const first = this.first;
    if (first) {
      const anchored =
        first.seq === '1' ? first.prevHash === GENESIS_HASH : this.anchors.get(first.seq) === first.prevHash;
      if (!anchored) {
        return {
          ok: false,
          verified: 0,
          broken: {
            seq: first.seq,
            id: first.id,
            problem: 'the oldest row is neither the first nor anchored by a retention row: rows were removed',
          },
        };
      }
    }
    const last = this.previous;
    const headSeq = head.seq.toString();
    if (!last) {
      if (head.seq === 0n) return { ok: true, verified: 0 };
      return {
        ok: false,
        verified: 0,
        broken: { seq: headSeq, id: '', problem: 'the chain head names a row that is gone' },
      };
    }
    if (last.seq !== headSeq || last.hash !== head.hash) {
      return {
        ok: false,
        verified: this.verified,
        broken: {
          seq: last.seq,
          id: last.id,
          problem: `the chain head is seq ${headSeq}: rows after this one were removed or the head altered`,
        },
      };
    }
    return { ok: true, verified: this.verified };
  }
}
