// Fixtures of a whole test file: something started before the file's tests and closed after them.

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
