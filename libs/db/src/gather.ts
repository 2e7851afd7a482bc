// Gathers the calls of one hot statement made in the same event-loop turn into one round trip, so PostgreSQL
// parses, plans, snapshots and commits once for all of them instead of once each.
import type { Db } from './client';

export interface GatherOptions {
  /** The most inputs one round trip carries; more are split over several (default 64). */
  maxSize?: number;
}

/**
 * Returns `submit(input)`: inputs submitted before the event loop's next check phase run together as one
 * `run(inputs)`, which must return one output per input, in order. Nothing waits for a timer: under light load a
 * batch holds one input and leaves at once, under load the inputs that arrived together leave together. If `run`
 * fails, every input of that batch fails with the same error.
 */
export function gather<In, Out>(
  run: (inputs: In[]) => Promise<Out[]>,
  opts: GatherOptions = {},
): (input: In) => Promise<Out> {
  const maxSize = opts.maxSize ?? 64;
  let pending: { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];

  const send = async (batch: typeof pending) => {
    try {
      const outs = await run(batch.map((p) => p.input));
      if (outs.length !== batch.length) throw new Error('gather: run returned a different number of outputs');
      for (const [i, p] of batch.entries()) p.resolve(outs[i]!);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  };

  const flush = () => {
    const all = pending;
    pending = [];
    for (let i = 0; i < all.length; i += maxSize) void send(all.slice(i, i + maxSize));
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ input, resolve, reject });
    });
}

/** `gather` for a statement run on any database: one queue per `Db`, so batches never mix databases. */
export function gatherOn<In, Out>(
  run: (db: Db, inputs: In[]) => Promise<Out[]>,
  opts: GatherOptions = {},
): (db: Db, input: In) => Promise<Out> {
  const byDb = new WeakMap<Db, (input: In) => Promise<Out>>();
  return (db, input) => {
    let submit = byDb.get(db);
    if (!submit) {
      submit = gather((inputs: In[]) => run(db, inputs), opts);
      byDb.set(db, submit);
    }
    return submit(input);
  };
}

/**
 * `unnest(...)` over the array parameters $first.. of the given element types, for a statement that carries a
 * gathered batch. Each array goes through a scalar sub-select so the planner cannot see its length: every
 * execution then plans alike, and PostgreSQL settles on one generic plan for the prepared statement after its
 * first five executions instead of planning every call anew (it otherwise keeps re-planning, because a plan that
 * knows the batch is small always looks cheaper). BENCHMARKS.md has the measurement.
 */
export function unnestParams(types: string[], first = 1): string {
  return `unnest(${types.map((t, i) => `(SELECT $${first + i}::${t}[])`).join(', ')})`;
}

/** The batch as one array per field, in the order of `keys`: the values for a statement built with `unnestParams`. */
export function columnsOf<T>(inputs: readonly T[], keys: readonly (keyof T)[]): unknown[][] {
  return keys.map((k) => inputs.map((i) => i[k]));
}
