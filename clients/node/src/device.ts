// The device flow (spec, Device authorization): start it, show the person the user code and where to go, then poll
// /device-token no faster than `interval`, slowing down as `slow_down` says, until tokens or a terminal answer
// (access_denied, expired_token, invalid_request, server_error: "stop polling and start a new authorization").
// An AbortSignal cancels the wait at once.
import type { Context } from './context.ts';
import { DeviceFlowError, SigninApiError } from './errors.ts';
import type { DeviceAuthorization, IssuedTokens } from './types.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A verification URI safe to show or open: absolute HTTPS (HTTP only on loopback), no credentials, no control
 * characters or surrounding whitespace (spec: clients reject control characters before display or launch).
 */
export function isSafeVerificationUri(raw: unknown): raw is string {
  if (typeof raw !== 'string' || raw.length > 2048) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) return false;
  try {
    const url = new URL(raw);
    if (url.username || url.password) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  } catch {
    return false;
  }
}

export interface DeviceLoginOptions {
  /** Called once with the code to show the person (user code and URIs). */
  onCode(authorization: DeviceAuthorization): void | Promise<void>;
  /** Cancels polling (the promise rejects with DeviceFlowError `aborted`). */
  signal?: AbortSignal;
  /** Waits `ms` (default a timer); tests pass their own. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function deviceCalls(ctx: Context) {
  const calls = {
    /** Starts a device authorization; refuses an answer whose URIs or user code are unsafe to show. */
    async deviceAuthorize(opts: { signal?: AbortSignal } = {}): Promise<DeviceAuthorization> {
      const started = await ctx.post<DeviceAuthorization>(
        'device',
        '/device-authorize',
        { applicationAnchor: ctx.anchor },
        { signal: opts.signal },
      );
      if (
        typeof started.deviceCode !== 'string' ||
        typeof started.userCode !== 'string' ||
        !/^[0-9A-Z]{4}-[0-9A-Z]{4}$/.test(started.userCode) ||
        !isSafeVerificationUri(started.verificationUri) ||
        !isSafeVerificationUri(started.verificationUriComplete)
      ) {
        throw new DeviceFlowError('unsafe_response');
      }
      return started;
    },

    /** One poll: tokens, or a SigninApiError whose `error` is the spec's code (authorization_pending, ...). */
    deviceToken(deviceCode: string, opts: { signal?: AbortSignal } = {}): Promise<IssuedTokens> {
      return ctx.post('device', '/device-token', { deviceCode }, { signal: opts.signal });
    },

    /**
     * Polls `authorization` until the person decides: resolves with the tokens, rejects with DeviceFlowError
     * (`access_denied`, `expired_token`, `invalid_request`, `server_error`, or `aborted`). The first poll waits one
     * interval.
     */
    async pollDeviceToken(
      authorization: DeviceAuthorization,
      opts: Omit<DeviceLoginOptions, 'onCode'> = {},
    ): Promise<IssuedTokens> {
      const sleep = opts.sleep ?? abortableSleep;
      let interval = Math.max(1, Number(authorization.interval) || 5);
      const deadline = ctx.now() + Math.max(1, Number(authorization.expiresIn) || 600) * 1000;
      for (;;) {
        try {
          await sleep(interval * 1000, opts.signal);
          if (opts.signal?.aborted) throw opts.signal.reason;
          return await calls.deviceToken(authorization.deviceCode, { signal: opts.signal });
        } catch (err) {
          if (opts.signal?.aborted) throw new DeviceFlowError('aborted', { cause: err });
          if (!(err instanceof SigninApiError)) {
            // No answer: keep polling at the same pace until the code expires.
            if (ctx.now() >= deadline) throw new DeviceFlowError('expired_token', { cause: err });
            continue;
          }
          const code = err.error ?? err.reason ?? `HTTP ${err.status}`;
          if (code === 'authorization_pending') {
            if (ctx.now() >= deadline) throw new DeviceFlowError('expired_token', { cause: err });
            continue;
          }
          if (code === 'slow_down') {
            // RFC 8628 3.5: the interval grows for this and every later request; the host says to what.
            const next = Number(err.body.interval);
            interval = Number.isInteger(next) && next > interval ? next : interval + 5;
            continue;
          }
          if (err.status === 429 || err.status === 503) {
            // Too many attempts, or an outage the host says to wait out (503 server_error with Retry-After: the
            // authorization is untouched): back off as told, then poll again. An outage that outlasts the code
            // ends as the code's expiry, not as a failed issuance.
            if (ctx.now() >= deadline) throw new DeviceFlowError('expired_token', { cause: err });
            interval = Math.max(interval, err.retryAfter ?? interval);
            continue;
          }
          // access_denied, expired_token, invalid_request, and server_error without a 503 (issuance itself failed:
          // "stop polling and start a new authorization"): terminal.
          throw new DeviceFlowError(code, { cause: err });
        }
      }
    },

    /** The whole flow: authorize, `onCode` to show the person, then poll until they decide. */
    async deviceLogin(opts: DeviceLoginOptions): Promise<IssuedTokens> {
      const authorization = await calls.deviceAuthorize({ signal: opts.signal });
      await opts.onCode(authorization);
      return calls.pollDeviceToken(authorization, opts);
    },
  };
  return calls;
}
