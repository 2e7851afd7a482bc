// The application's JWK Set as the spec's "Token verification" wants it cached: fetched from the configured session
// origin only, kept for its Cache-Control max-age and never beyond 300 s, refetched at once when a token names an
// unknown kid (at most once per `minRefetchMs`, so a flood of forged kids cannot turn into a flood of fetches),
// and, when a refetch fails, the last good set kept for at most 300 s after its fetch (the spec's bound on
// accepting a key after an emergency revocation). After a failed fetch no fetch is made for a back-off (1 s by
// default, doubling to 30 s, reset by a success), so a failing host costs at most one request per back-off
// however many tokens arrive.
import { call, type Transport, trimBase } from './http.ts';
import { importRsaKey, type VerificationKey } from './rsa.ts';

/** The spec's ceiling: a verifier may keep a key at most 300 s after its last successful fetch. */
export const MAX_KEY_SET_AGE_SECONDS = 300;

export interface KeySetOptions {
  sessionUrl: string;
  applicationAnchor: string;
  transport: Transport;
  /** Milliseconds since the epoch (default Date.now). */
  now: () => number;
  /** Floor between two fetches triggered by unknown kids (default 1000 ms). */
  minRefetchMs?: number;
  /** Ceiling on the back-off after failed fetches (default 30000 ms); the first back-off is `minRefetchMs`. */
  maxBackoffMs?: number;
  /** Ceiling on the cache lifetime, at most 300 (default 300). */
  maxAgeSeconds?: number;
}

interface Loaded {
  keys: Map<string, VerificationKey>;
  fetchedAt: number;
  /** When the set must be fetched again (Cache-Control max-age, capped). */
  freshUntil: number;
}

interface JwkEntry {
  kty?: unknown;
  kid?: unknown;
  use?: unknown;
  alg?: unknown;
  n?: unknown;
  e?: unknown;
}

/** `max-age` of a Cache-Control header, in seconds; 0 when the answer may not be reused (or says nothing). */
export function maxAgeOf(header: string | null): number {
  if (!header) return 0;
  const directives = header
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
  for (const d of directives) {
    const m = /^max-age\s*=\s*"?(\d+)"?$/.exec(d);
    if (m) return Number(m[1]);
  }
  return 0;
}

export class KeySet {
  private loaded: Loaded | undefined;
  private inflight: Promise<Loaded> | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  /** Consecutive failed fetches, and the instant before which no fetch is made after the last one. */
  private failures = 0;
  private retryAt = Number.NEGATIVE_INFINITY;
  private lastError: unknown;
  private readonly url: string;
  private readonly minRefetchMs: number;
  private readonly maxBackoffMs: number;
  private readonly capSeconds: number;

  constructor(private readonly opts: KeySetOptions) {
    this.url = `${trimBase(opts.sessionUrl)}/applications/${encodeURIComponent(opts.applicationAnchor)}/jwks.json`;
    this.minRefetchMs = opts.minRefetchMs ?? 1000;
    this.maxBackoffMs = Math.max(opts.maxBackoffMs ?? 30_000, this.minRefetchMs);
    this.capSeconds = Math.min(opts.maxAgeSeconds ?? MAX_KEY_SET_AGE_SECONDS, MAX_KEY_SET_AGE_SECONDS);
  }

  /** The fetch URL: always the configured origin and anchor, never anything a token says. */
  get jwksUrl(): string {
    return this.url;
  }

  /**
   * The key for `kid`, or undefined when the set (fresh, or fetched again once for this unknown kid) lacks it.
   * Throws when no usable set can be had.
   */
  async keyFor(kid: string): Promise<VerificationKey | undefined> {
    const now = this.opts.now();
    let set = this.loaded;
    if (!set || now >= set.freshUntil) set = await this.refresh(now);
    const key = set.keys.get(kid);
    if (key) return key;
    // Unknown kid: one immediate refetch (spec step 4), unless one was made within the floor.
    if (now - this.lastAttempt < this.minRefetchMs)
      return this.inflight ? (await this.inflight).keys.get(kid) : undefined;
    set = await this.refresh(now, true);
    return set.keys.get(kid);
  }

  /** Fetches the set again now (one fetch shared by concurrent callers). */
  private async refresh(now: number, force = false): Promise<Loaded> {
    if (this.inflight) return this.inflight;
    if (!force && this.loaded && now < this.loaded.freshUntil) return this.loaded;
    if (now < this.retryAt) return this.fallback(now, this.lastError);
    this.lastAttempt = now;
    this.inflight = this.fetchSet().then(
      (loaded) => {
        this.loaded = loaded;
        this.failures = 0;
        this.retryAt = Number.NEGATIVE_INFINITY;
        return loaded;
      },
      (err: unknown) => {
        const failedAt = this.opts.now();
        this.failures += 1;
        this.lastError = err;
        const backoff = Math.min(this.minRefetchMs * 2 ** Math.min(this.failures - 1, 30), this.maxBackoffMs);
        this.retryAt = failedAt + backoff;
        return this.fallback(failedAt, err);
      },
    );
    try {
      return await this.inflight;
    } finally {
      this.inflight = undefined;
    }
  }

  /** A set fetched within the last 300 s may still be used (spec, Key set rules); older is refused. */
  private fallback(now: number, err: unknown): Loaded {
    const kept = this.loaded;
    if (kept && now - kept.fetchedAt < MAX_KEY_SET_AGE_SECONDS * 1000) return kept;
    throw err;
  }

  private async fetchSet(): Promise<Loaded> {
    let maxAge = 0;
    const body = await call<{ keys?: unknown }>(
      {
        ...this.opts.transport,
        fetch: async (input, init) => {
          const res = await this.opts.transport.fetch(input, init);
          maxAge = maxAgeOf(res.headers.get('cache-control'));
          return res;
        },
      },
      this.url,
      { method: 'GET', endpoint: 'GET /applications/{anchor}/jwks.json' },
    );
    const keys = new Map<string, VerificationKey>();
    const entries = Array.isArray(body.keys) ? (body.keys as JwkEntry[]) : [];
    for (const jwk of entries) {
      if (jwk?.kty !== 'RSA' || typeof jwk.kid !== 'string' || !jwk.kid) continue;
      if ((jwk.use !== undefined && jwk.use !== 'sig') || (jwk.alg !== undefined && jwk.alg !== 'RS256'))
        continue;
      if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') continue;
      try {
        keys.set(jwk.kid, await importRsaKey({ kty: 'RSA', n: jwk.n, e: jwk.e }));
      } catch {
        // An entry that is not a usable RSA key verifies nothing; the others still do.
      }
    }
    const fetchedAt = this.opts.now();
    // An answer that may not be reused is still kept for the floor, so verifying is not one fetch per token.
    const lifetimeMs = Math.max(Math.min(maxAge, this.capSeconds) * 1000, this.minRefetchMs);
    return { keys, fetchedAt, freshUntil: fetchedAt + lifetimeMs };
  }
}
