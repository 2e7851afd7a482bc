// gather: which calls share a round trip, outputs back to their callers, failures to every caller of a batch.
import type { Db } from './client';
import { columnsOf, gather, gatherOn } from './gather';

function recorder(opts?: { maxSize?: number; fail?: boolean; drop?: boolean }) {
  const batches: number[][] = [];
  const submit = gather(
    async (inputs: number[]) => {
      batches.push(inputs);
      if (opts?.fail) throw new Error('down');
      const outs = inputs.map((n) => n * 10);
      return opts?.drop ? outs.slice(1) : outs;
    },
    { maxSize: opts?.maxSize },
  );
  return { submit, batches };
}

describe('gather', () => {
  test('calls made in one turn share one run; each caller gets its own output', async () => {
    const { submit, batches } = recorder();
    const outs = await Promise.all([submit(1), submit(2), submit(3)]);
    expect(outs).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  test('calls in later turns go in later runs', async () => {
    const { submit, batches } = recorder();
    expect(await submit(1)).toBe(10);
    expect(await submit(2)).toBe(20);
    expect(batches).toEqual([[1], [2]]);
  });

  test('splits a turn larger than maxSize', async () => {
    const { submit, batches } = recorder({ maxSize: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map(submit))).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  test('a failed run fails every caller of that batch', async () => {
    const { submit } = recorder({ fail: true });
    const results = await Promise.allSettled([submit(1), submit(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  test('a run that loses outputs fails its callers instead of misaligning them', async () => {
    const { submit } = recorder({ drop: true });
    await expect(Promise.all([submit(1), submit(2)])).rejects.toThrow('different number of outputs');
  });

  test('gatherOn keeps one queue per database: calls on two databases never share a run', async () => {
    const runs: [string, number[]][] = [];
    const submit = gatherOn(async (db, inputs: number[]) => {
      runs.push([(db as unknown as { name: string }).name, inputs]);
      return inputs;
    });
    const [a, b] = [{ name: 'a' }, { name: 'b' }] as unknown as Db[];
    await Promise.all([submit(a!, 1), submit(b!, 2), submit(a!, 3)]);
    expect(runs).toEqual([
      ['a', [1, 3]],
      ['b', [2]],
    ]);
  });

  test('columnsOf lays a batch out as one array per field', () => {
    const batch = [
      { sid: 'a', version: 1 },
      { sid: 'b', version: 2 },
    ];
    expect(columnsOf(batch, ['sid', 'version'])).toEqual([
      ['a', 'b'],
      [1, 2],
    ]);
  });
});
