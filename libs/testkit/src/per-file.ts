// Fixtures of a whole test file: something started before the file's tests and closed after them.
import { type InfraOptions, openInfra, type TestInfra } from './infra';

/**
 * Starts what `start` gives before the file's tests and closes it after them. The object returned is filled with
 * the started one's fields in beforeAll, so a file holds it in a const and reads it in its tests.
 */
export function useStarted<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  const fields = {} as T;
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    Object.assign(fields, started);
  });
  afterAll(async () => {
    await started?.close();
  });
  return fields;
}

/**
 * The file's test infrastructure: opened in a beforeAll (with `opts`, or with what `opts()` gives then, when it
 * names something an earlier beforeAll opens, such as a private database), closed in an afterAll. Hold it in a
 * const at the top of the file. Every field of the handle is a getter onto the opened infrastructure, so it is
 * never a copy taken before beforeAll or a stale field; reading one before beforeAll ran throws at once. Its hooks
 * run in the order declared: an afterAll declared later (stopping a host over it, say) runs after it is closed.
 */
export function useInfra(opts: InfraOptions | (() => InfraOptions) = {}): TestInfra {
  let opened: TestInfra | undefined;
  const current = (): TestInfra => {
    if (!opened) throw new Error('useInfra: the infrastructure is read before its beforeAll opened it');
    return opened;
  };
  beforeAll(() => {
    opened = openInfra(typeof opts === 'function' ? opts() : opts);
  });
  afterAll(async () => {
    await opened?.close();
  });
  return {
    get db() {
      return current().db;
    },
    get redis() {
      return current().redis;
    },
    get subscriber() {
      return current().subscriber;
    },
    get keyRing() {
      return current().keyRing;
    },
    get issuance() {
      return current().issuance;
    },
    get provisioning() {
      return current().provisioning;
    },
    close: () => current().close(),
  };
}
