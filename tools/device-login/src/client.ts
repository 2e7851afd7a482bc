// The reference device client over the application SDK's device flow (@signin-service/node): start a device
// authorization, show the person where to go (user code, short URI, a QR code of the complete URI), then let the
// SDK poll /device-token honouring `interval` and `slow_down` until the person decides. Free of the process, so
// tests drive it with their own output, sleep and a stand-in server; src/main.ts is the `pnpm device-login`
// command around it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createSigninClient,
  DeviceFlowError,
  type FetchLike,
  type IssuedTokens,
  isSafeVerificationUri,
  SigninApiError,
  SigninNetworkError,
} from '@signin-service/node';
import QRCode from 'qrcode';

/** This tool's version, from its package.json (one place to bump). */
export const VERSION = (
  JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;

/** Sent on every call, so the device host's approval page and logs can name what asked for the code. */
export const USER_AGENT = `device-login/${VERSION} (signin-service; node/${process.versions.node})`;

export { isSafeVerificationUri };

export interface DeviceLoginOptions {
  /** Base URL of the device host (`--device-url`, DEVICE_URL). */
  deviceUrl: string;
  /** The application's anchor (`--app`). */
  applicationAnchor: string;
  /** Where the person reads the instructions (the terminal). */
  show(text: string): void;
  /** Waits this many milliseconds (a test passes its own). */
  sleep?: (ms: number) => Promise<void>;
  fetch?: FetchLike;
  /** Print a QR code of verificationUriComplete (default true). */
  qr?: boolean;
  /** Stops waiting (Ctrl-C). */
  signal?: AbortSignal;
  /** Milliseconds since the epoch, for the code's lifetime (default Date.now; a test passes its own). */
  now?: () => number;
  /** Called with a line for the person when the host stops answering during polling, and when it answers again. */
  notice?: (text: string) => void;
}

export type DeviceTokens = IssuedTokens;

export type DeviceLoginResult =
  | { ok: true; tokens: DeviceTokens }
  | { ok: false; error: string; words: string };

/** What each refusal means, in words for the person at the terminal. */
export const ERROR_WORDS: Record<string, string> = {
  access_denied: 'The sign-in was denied (or the account must first accept the current terms). Start again.',
  expired_token: 'The code expired before anyone approved it. Start again to get a new code.',
  invalid_request: 'The device code was not accepted (unknown or already used). Start again.',
  server_error:
    'The service failed to issue tokens for this sign-in, so this code is finished. Start a new sign-in (run the command again).',
  unsafe_response: 'The service answered with an unusable or unsafe URI.',
  aborted: 'Stopped before anyone approved the sign-in.',
  ApplicationNotFound: 'No application has this anchor.',
  ApplicationNotActive: 'The application is not active.',
  Layer3Denied: 'The application does not allow device sign-in (no DEVICE_CODE return rule).',
  TooManyAttempts: 'Too many device sign-ins from this address. Wait a little and try again.',
  InvalidBody: 'The request was refused as malformed (check the anchor).',
  TemporarilyUnavailable: 'The service is temporarily unavailable. Try again in a moment.',
};

/** The one failure whose words name where: the device host did not answer at all. */
export const UNREACHABLE = 'unreachable';

function words(code: string, deviceUrl: string): string {
  if (code === UNREACHABLE) {
    return `Could not reach the device host at ${deviceUrl}. Is it running (pnpm start), and is --device-url (or DEVICE_URL) right?`;
  }
  return ERROR_WORDS[code] ?? `The service answered ${code}.`;
}

function codeOf(err: unknown): string | undefined {
  if (err instanceof DeviceFlowError) return err.error;
  if (err instanceof SigninApiError) return err.reason ?? err.error ?? `HTTP ${err.status}`;
  if (err instanceof SigninNetworkError) return UNREACHABLE;
  return undefined;
}

/**
 * The fetch every call goes through: it names this tool in User-Agent, and tells the person once when the host stops
 * answering a poll (a restart: the SDK keeps polling at the same pace until the code expires) and once when it is
 * back, so a pause is not mistaken for a hang.
 */
function deviceFetch(base: FetchLike, deviceUrl: string, notice: (text: string) => void): FetchLike {
  let down = false;
  return async (input, init) => {
    const headers = { ...(init.headers as Record<string, string> | undefined), 'user-agent': USER_AGENT };
    const polling = input.endsWith('/device-token');
    try {
      const res = await base(input, { ...init, headers });
      if (down) notice('  The device host answers again; still waiting for approval...');
      down = false;
      return res;
    } catch (err) {
      if (polling && !down && !init.signal?.aborted) {
        notice(
          `  The device host at ${deviceUrl} is not answering (restarting?); trying again at each poll...`,
        );
      }
      if (polling) down = true;
      throw err;
    }
  };
}

export async function deviceLogin(opts: DeviceLoginOptions): Promise<DeviceLoginResult> {
  const client = createSigninClient({
    applicationAnchor: opts.applicationAnchor,
    deviceUrl: opts.deviceUrl,
    fetch: deviceFetch(
      opts.fetch ?? ((input, init) => fetch(input, init)),
      opts.deviceUrl,
      opts.notice ?? opts.show,
    ),
    now: opts.now,
  });
  const sleep = opts.sleep;
  try {
    const tokens = await client.deviceLogin({
      signal: opts.signal,
      sleep: sleep ? (ms) => sleep(ms) : undefined,
      async onCode({ userCode, verificationUri, verificationUriComplete, expiresIn }) {
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
        opts.show(`  Waiting for approval (the code expires in ${Math.round(expiresIn / 60) || 1} min)...`);
      },
    });
    return { ok: true, tokens };
  } catch (err) {
    const code = codeOf(err);
    if (code === undefined) throw err;
    return { ok: false, error: code, words: words(code, opts.deviceUrl) };
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
