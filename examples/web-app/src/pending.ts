// Pending sign-ins kept server-side between the start and the callback: each expires after `ttlMs` (10 minutes by
// default) and at most `max` are kept (the oldest dropped first), so anonymous starts cannot grow memory forever.
export class PendingStore<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(private readonly opts: { ttlMs?: number; max?: number; now?: () => number } = {}) {}

  private get ttlMs() {
    return this.opts.ttlMs ?? 10 * 60_000;
  }

  private get max() {
    return this.opts.max ?? 100;
  }

  private now() {
    return (this.opts.now ?? Date.now)();
  }

  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  set(key: string, value: T): void {
    this.sweep();
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    // Map keeps insertion order: the first keys are the oldest.
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** The value for `key` while it is live; an expired one is forgotten. */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (now >= entry.expiresAt) this.entries.delete(key);
  }
}
