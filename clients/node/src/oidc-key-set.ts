// The OIDC issuer's JWK Set for ID-token verification: fetched at most once per `minRefetchMs` (back-off doubling to
// `maxBackoffMs` after failures), refetched once when a token names a kid the set lacks, and a key that has left the
// set trusted only for 300 s after this client first saw it missing (then refused with a clear error).
import { type CryptoKey, errors, importJWK, type JWK, type JWSHeaderParameters } from 'jose';
import type { Transport } from './http.ts';

/** How long a key that left the issuer's set is still trusted after the client first saw it gone. */
export const GONE_KEY_GRACE_SECONDS = 300;

export interface OidcKeySetOptions {
  transport: Transport;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** How long a fetched set is used before it is fetched again, and the floor between fetches (default 30000). */
  maxAgeMs?: number;
  /** Floor between two fetches (default 1000 ms); after failures it doubles up to `maxBackoffMs` (30000). */
  minRefetchMs?: number;
  maxBackoffMs?: number;
}

interface Known {
  jwk: JWK;
  /** When this client first fetched a set lacking this key; undefined while the key is in the set. */
  goneSince?: number;
}

export class OidcKeySet {
  private readonly keys = new Map<string, Known>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private retryAt = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private inflight: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly minRefetchMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    private readonly url: string,
    private readonly opts: OidcKeySetOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.maxAgeMs = opts.maxAgeMs ?? 30_000;
    this.minRefetchMs = opts.minRefetchMs ?? 1000;
    this.maxBackoffMs = Math.max(opts.maxBackoffMs ?? 30_000, this.minRefetchMs);
  }

  /** The jose key resolver: pass `(h) => set.getKey(h)` to jwtVerify. */
  async getKey(header: JWSHeaderParameters): Promise<CryptoKey> {
    const kid = header.kid;
    if (typeof kid !== 'string' || !kid) throw new errors.JWKSNoMatchingKey('the ID token names no kid');
    if (this.now() - this.fetchedAt >= this.maxAgeMs) await this.refresh();
    let known = this.keys.get(kid);
    // Unknown or gone kid: one refetch, if the floor and back-off allow it.
    if (!known || known.goneSince !== undefined) {
      await this.refresh();
      known = this.keys.get(kid);
    }
    if (!known) throw new errors.JWKSNoMatchingKey(`no key ${kid} in the issuer's JWK Set`);
    if (known.goneSince !== undefined && this.now() - known.goneSince > GONE_KEY_GRACE_SECONDS * 1000) {
      throw new errors.JWKSNoMatchingKey(
        `key ${kid} left the issuer's JWK Set more than ${GONE_KEY_GRACE_SECONDS} s ago; refusing tokens it signed`,
      );
    }
    if (known.jwk.kty !== 'RSA') throw new errors.JWKSNoMatchingKey(`key ${kid} is not an RSA key`);
    return (await importJWK({ ...known.jwk, alg: 'RS256' }, 'RS256')) as CryptoKey;
  }

  /** Fetches the set unless the floor or back-off forbids it now; one fetch shared by concurrent callers. */
  private async refresh(): Promise<void> {
    if (this.inflight) return this.inflight;
    const now = this.now();
    if (now - this.lastAttempt < this.minRefetchMs || now < this.retryAt) return;
    this.lastAttempt = now;
    this.inflight = this.fetchSet().then(
      () => {
        this.failures = 0;
        this.retryAt = Number.NEGATIVE_INFINITY;
      },
      () => {
        this.failures += 1;
        const backoff = Math.min(this.minRefetchMs * 2 ** Math.min(this.failures - 1, 30), this.maxBackoffMs);
        this.retryAt = this.now() + backoff;
      },
    );
    try {
      await this.inflight;
    } finally {
      this.inflight = undefined;
    }
  }

  private async fetchSet(): Promise<void> {
    const res = await this.opts.transport.fetch(this.url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(this.opts.transport.timeoutMs),
    });
    if (!res.ok) throw new Error(`JWK Set answered ${res.status}`);
    const body = (await res.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('JWK Set has no keys array');
    const at = this.now();
    const present = new Set<string>();
    for (const jwk of body.keys as JWK[]) {
      if (typeof jwk?.kid !== 'string' || !jwk.kid) continue;
      if (jwk.use !== undefined && jwk.use !== 'sig') continue;
      present.add(jwk.kid);
      this.keys.set(jwk.kid, { jwk });
    }
    for (const [kid, known] of this.keys) {
      if (!present.has(kid) && known.goneSince === undefined) known.goneSince = at;
    }
    this.fetchedAt = at;
  }
}
