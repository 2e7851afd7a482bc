// Waiting for a condition in tests: poll it until it holds, within one bound shared by every wait.

/** Polls `check` every `everyMs` until it holds (a throw counts as not yet); fails after `timeoutMs`. */
export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error('condition not met in time');
}
