// The reference device client (RFC 8628 with this service's wire shapes): start a device authorization, show the
// person where to go (user code, short URI, a QR code of the complete URI), then poll /device-token honouring
// `interval` and `slow_down` until the person decides. Free of the process, so tests drive it with their own
// output, clock and a stand-in server; src/main.ts is the `pnpm device-login` command around it.
import QRCode from 'qrcode';

export interface DeviceLoginOptions {
  /** Base URL of the device host (`--device-url`, DEVICE_URL). */
  deviceUrl: string;
  /** The application's anchor (`--app`). */
  applicationAnchor: string;
  /** Where the person reads the instructions (the terminal). */
  show(text: string): void;
  /** Waits this many milliseconds (a test passes its own). */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
  /** Print a QR code of verificationUriComplete (default true). */
  qr?: boolean;
}

export interface DeviceTokens {
  applicationAnchor: string;
  accessToken: string;
  refreshToken: string;
  claims: Record<string, { requirement: string; state: string }>;
}

export type DeviceLoginResult =
  | { ok: true; tokens: DeviceTokens }
  | { ok: false; error: string; words: string };

/** What each refusal means, in words for the person at the terminal. */
export const ERROR_WORDS: Record<string, string> = {
  access_denied: 'The sign-in was denied (or the account must first accept the current terms). Start again.',
  expired_token: 'The code expired before anyone approved it. Start again to get a new code.',
  invalid_request: 'The device code was not accepted (unknown or already used). Start again.',
  server_error: 'The service could not issue tokens. Start again in a moment.',
  ApplicationNotFound: 'No application has this anchor.',
  ApplicationNotActive: 'The application is not active.',
  Layer3Denied: 'The application does not allow device sign-in (no DEVICE_CODE return rule).',
  TooManyAttempts: 'Too many device sign-ins from this address. Wait a little and try again.',
  InvalidBody: 'The request was refused as malformed (check the anchor).',
  TemporarilyUnavailable: 'The service is temporarily unavailable. Try again in a moment.',
};

const words = (code: string) => ERROR_WORDS[code] ?? `The service answered ${code}.`;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A verification URI the client may show or launch: absolute HTTPS (HTTP only on loopback), no credentials, and
 * no control characters or surrounding whitespace (spec: clients reject control characters before display).
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

async function postJson(f: typeof fetch, url: string, body: unknown) {
  const res = await f(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    // Some failures are status-only with an empty body (spec, Errors): check before parsing.
    if (text) json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: res.status, json };
}

export async function deviceLogin(opts: DeviceLoginOptions): Promise<DeviceLoginResult> {
  const f = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const base = opts.deviceUrl.replace(/\/+$/, '');
  const started = await postJson(f, `${base}/device-authorize`, {
    applicationAnchor: opts.applicationAnchor,
  });
  if (started.status !== 200) {
    const code = typeof started.json.reason === 'string' ? started.json.reason : `HTTP ${started.status}`;
    return { ok: false, error: code, words: words(code) };
  }
  const { deviceCode, userCode, verificationUri, verificationUriComplete, expiresIn } = started.json;
  let interval = Number(started.json.interval) || 5;
  if (
    typeof deviceCode !== 'string' ||
    typeof userCode !== 'string' ||
    !/^[0-9A-Z]{4}-[0-9A-Z]{4}$/.test(userCode) ||
    !isSafeVerificationUri(verificationUri) ||
    !isSafeVerificationUri(verificationUriComplete)
  ) {
    return {
      ok: false,
      error: 'unsafe_response',
      words: 'The service answered with an unusable or unsafe URI.',
    };
  }
  opts.show(
    [
      '',
      `  To sign in, open  ${verificationUri}`,
      `  and enter the code  ${userCode}`,
      '',
      `  Or scan this code with a phone (it opens ${verificationUriComplete}):`,
      '',
    ].join('\n'),
  );
  if (opts.qr !== false)
    opts.show(await QRCode.toString(verificationUriComplete, { type: 'terminal', small: true }));
  opts.show(`  Waiting for approval (the code expires in ${Math.round(Number(expiresIn) / 60) || 1} min)...`);

  for (;;) {
    await sleep(interval * 1000);
    const polled = await postJson(f, `${base}/device-token`, { deviceCode });
    if (polled.status === 200) return { ok: true, tokens: polled.json as unknown as DeviceTokens };
    const error = typeof polled.json.error === 'string' ? polled.json.error : `HTTP ${polled.status}`;
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      // RFC 8628 section 3.5: the interval grows by 5 s for this and every later request; the service says by how much.
      const next = Number(polled.json.interval);
      interval = Number.isInteger(next) && next > interval ? next : interval + 5;
      continue;
    }
    return { ok: false, error, words: words(error) };
  }
}

/** The payload of a JWT, unverified: for showing what a token says, never for trusting it. */
export function jwtPayload(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) return {};
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
