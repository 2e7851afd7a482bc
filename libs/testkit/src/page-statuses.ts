// A host's page-status table, checked the same way in every host: each key has an error status, is one of the
// host's strings in every locale, and does not shadow a shared key (the site refuses that where it merges them).

/** Expects `own` (a host's page statuses) to be well-formed beside the `shared` table and the host's `locales`. */
export function expectPageStatusTable(
  own: Readonly<Record<string, number>>,
  locales: readonly Readonly<Record<string, unknown>>[],
  shared: Readonly<Record<string, number>>,
): void {
  expect(Object.keys(own).length).toBeGreaterThan(0);
  for (const [key, status] of Object.entries(own)) {
    expect([key, status >= 400 && status < 500]).toEqual([key, true]);
    expect([key, locales.every((strings) => Object.hasOwn(strings, key))]).toEqual([key, true]);
    expect([key, Object.hasOwn(shared, key)]).toEqual([key, false]);
  }
}
