// The chain's pure rules: canonical JSON, redaction, sealing, and the walk that names the first row that fails.
import {
  ChainWalk,
  canonicalJson,
  GENESIS_HASH,
  hashEvent,
  hashedPart,
  normalizeChanges,
  sealEvents,
} from './chain';
import type { AuditEvent } from './types';

const ctx = { actor: { kind: 'cli' as const, id: 'tester', name: 'pnpm admin' }, requestId: 'req-1' };

function chainOf(n: number): AuditEvent[] {
  return sealEvents(
    { seq: 0n, hash: GENESIS_HASH },
    ctx,
    Array.from({ length: n }, (_, i) => ({
      action: 'org.create',
      target: { type: 'organization', id: `o${i}` },
    })),
    new Date('2026-11-29T05:00:00.000Z'),
  );
}

function walk(rows: AuditEvent[], head = rows[rows.length - 1]) {
  const w = new ChainWalk();
  for (const r of rows) if (!w.add(r)) break;
  return w.finish(head ? { seq: BigInt(head.seq), hash: head.hash } : { seq: 0n, hash: GENESIS_HASH });
}

test('canonical JSON sorts members at every depth and drops undefined ones', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: 'x' }, u: undefined })).toBe(
    '{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}',
  );
  expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
});

test('secret-named fields are redacted whatever a caller passes; bigints and dates become JSON', () => {
  const out = normalizeChanges({
    secretHash: { from: 'abc', to: 'def' },
    clientSecret: { from: null, to: 'oidcs_x' },
    privateKeyEnc: { from: 'sealed', to: null },
    platformAppIds: { from: null, to: [1n, 2n] as unknown as number[] },
    activatesAt: { from: null, to: new Date('2026-01-01T00:00:00Z') },
    status: { from: 'ACTIVE', to: undefined },
  });
  expect(out).toEqual({
    secretHash: { from: '<redacted>', to: '<redacted>' },
    clientSecret: { from: null, to: '<redacted>' },
    privateKeyEnc: { from: '<redacted>', to: null },
    platformAppIds: { from: null, to: ['1', '2'] },
    activatesAt: { from: null, to: '2026-01-01T00:00:00.000Z' },
    status: { from: 'ACTIVE', to: null },
  });
});

test('sealed rows chain from the head: seq +1 each, prev_hash the previous hash, hash over the content', () => {
  const rows = chainOf(3);
  expect(rows.map((r) => r.seq)).toEqual(['1', '2', '3']);
  expect(rows[0]!.prevHash).toBe(GENESIS_HASH);
  expect(rows[1]!.prevHash).toBe(rows[0]!.hash);
  for (const r of rows) expect(hashEvent(hashedPart(r))).toBe(r.hash);
  expect(rows[0]!.actor).toEqual(ctx.actor);
  expect(rows[0]!.requestId).toBe('req-1');
  expect(rows[0]!.sourceAddress).toBeNull();
  expect(walk(rows)).toEqual({ ok: true, verified: 3 });
  expect(walk([])).toEqual({ ok: true, verified: 0 });
});

test('the walk names the first row whose content was altered', () => {
  const rows = chainOf(4);
  rows[2] = { ...rows[2]!, changes: { name: { from: null, to: 'forged' } } };
  expect(walk(rows)).toMatchObject({ ok: false, verified: 2, broken: { seq: '3', id: rows[2]!.id } });
});

test('the walk notices a row removed in the middle, at the new end, and at the old end', () => {
  const rows = chainOf(5);
  const middle = [...rows.slice(0, 2), ...rows.slice(3)];
  expect(walk(middle)).toMatchObject({ ok: false, broken: { seq: '4' } });
  // The tail row removed: the head still names seq 5.
  expect(walk(rows.slice(0, 4), rows[4])).toMatchObject({ ok: false, broken: { seq: '4' } });
  // Old rows removed without a retention row anchoring the first kept one.
  expect(walk(rows.slice(2))).toMatchObject({ ok: false, broken: { seq: '3' } });
});

test('a retention row anchors the first kept row', () => {
  const rows = chainOf(4);
  const last = rows[3]!;
  const [cut] = sealEvents(
    { seq: BigInt(last.seq), hash: last.hash },
    ctx,
    [
      {
        action: 'audit.retention',
        target: { type: 'audit_trail', id: 'audit_events' },
        changes: { firstSeq: { from: '1', to: '3' }, anchor: { from: GENESIS_HASH, to: rows[2]!.prevHash } },
      },
    ],
    new Date('2026-11-29T06:00:00.000Z'),
  );
  expect(walk([...rows.slice(2), cut!])).toEqual({ ok: true, verified: 3 });
  // The same cut claiming another first row does not anchor this one.
  expect(walk([...rows.slice(1), cut!])).toMatchObject({ ok: false, broken: { seq: '2' } });
});
