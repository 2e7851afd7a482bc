// What every call shares: the hosts' URLs, the transport, the clock, the application's client key, and the one
// retry rule (a retry only where the spec says it is safe, each signing its assertion afresh).
import { SigninApiError, SigninNetworkError } from './errors.ts';
import { type CallOptions, call, type FetchLike, type Transport, trimBase } from './http.ts';
import { type BoundSigner, boundSigner, type SigningKeyInput } from './signing.ts';

export interface ClientOptions {
  /** Your application's anchor. */
  applicationAnchor: string;
  /** CONNECT_URL: /establish, /redeem, /info. */
  connectUrl?: string;
  /** SESSION_URL: /refresh, /logout, /introspect, /userinfo, /claim-state, /revoke-all. */
  sessionUrl?: string;
  /** NATIVE_URL: the three direct-issue paths and /errand. */
  nativeUrl?: string;
  /** DEVICE_URL: /device-authorize, /device-token. */
  deviceUrl?: string;
  /** The registered Ed25519 client key (a private JWK with `d` and `kid`), for /establish and /revoke-all. */
  clientKey?: SigningKeyInput;
  /** The client key's id when `clientKey` is a CryptoKey. */
  clientKeyId?: string;
  fetch?: FetchLike;
  /** Milliseconds before a call without an answer is abandoned (default 10 000). */
  timeoutMs?: number;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** How often a call the spec allows retrying is retried (default 1). */
  maxRetries?: number;
}

export type HostName = 'connect' | 'session' | 'native' | 'device';

export class Context {
  readonly anchor: string;
  readonly transport: Transport;
  readonly now: () => number;
  readonly maxRetries: number;
  private signer: Promise<BoundSigner> | undefined;

  constructor(private readonly opts: ClientOptions) {
    if (!opts.applicationAnchor) throw new TypeError('applicationAnchor is required');
    this.anchor = opts.applicationAnchor;
    this.transport = {
      fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
      timeoutMs: opts.timeoutMs ?? 10_000,
    };
    this.now = opts.now ?? Date.now;
    this.maxRetries = opts.maxRetries ?? 1;
  }

  url(host: HostName, path: string): string {
    const base = {
      connect: this.opts.connectUrl,
      session: this.opts.sessionUrl,
      native: this.opts.nativeUrl,
      device: this.opts.deviceUrl,
    }[host];
    if (!base) throw new TypeError(`${host}Url is not configured`);
    return `${trimBase(base)}${path}`;
  }

  /** The client key, imported once. */
  clientSigner(): Promise<BoundSigner> {
    if (!this.opts.clientKey) return Promise.reject(new TypeError('clientKey is not configured'));
    this.signer ??= boundSigner(this.opts.clientKey, this.opts.clientKeyId);
    return this.signer;
  }

  /** POSTs `body` serialized once, so any signature over it covers the exact bytes sent. */
  post<T>(host: HostName, path: string, body: unknown, opts: Partial<CallOptions> = {}): Promise<T> {
    return call<T>(this.transport, this.url(host, path), {
      endpoint: `POST ${path}`,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...opts,
    });
  }

  get<T>(host: HostName, path: string, opts: Partial<CallOptions> = {}): Promise<T> {
    return call<T>(this.transport, this.url(host, path), { endpoint: `GET ${path}`, method: 'GET', ...opts });
  }

  /** Runs `attempt` again (at most maxRetries times) while `retryable` says the spec allows it. */
  async retrying<T>(attempt: () => Promise<T>, retryable: (err: unknown) => boolean): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt();
      } catch (err) {
        if (tries >= this.maxRetries || !retryable(err)) throw err;
      }
    }
  }
}

export const isNetworkFailure = (err: unknown): boolean => err instanceof SigninNetworkError;

export const hasReason =
  (...reasons: string[]) =>
  (err: unknown): boolean =>
    err instanceof SigninApiError && err.reason !== undefined && reasons.includes(err.reason);
