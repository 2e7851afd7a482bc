// `pnpm device-login --app ANCHOR [--device-url URL] [--no-qr] [--print-tokens]`: signs in on this terminal with
// the device flow. Instructions and the QR code go to stderr; the result goes to stdout as one JSON object (the
// claims view and what each token says; the tokens themselves only with --print-tokens). Exit 0 when approved;
// every failure (host down, application unknown, denied, expired) is one sentence on stderr, {error, message} on
// stdout and exit 1; a usage error exits 2.
import { parseArgs } from 'node:util';
import { deviceLogin, jwtPayload, VERSION } from './client';

const USAGE = [
  'usage: pnpm device-login --app ANCHOR [--device-url URL] [--no-qr] [--print-tokens]',
  '',
  '  Signs in on this terminal with the device flow: open the printed URI (or scan the QR code) and approve.',
  '  --device-url  the device host (default DEVICE_URL, else http://localhost:4104)',
  '  --no-qr       no QR code',
  '  --print-tokens  print the access and refresh tokens too (otherwise only what they say)',
  '  Exit 0 approved; 1 not signed in (the reason in words on stderr, {error, message} on stdout); 2 usage.',
].join('\n');

async function main(): Promise<number> {
  let values: {
    app?: string;
    'device-url'?: string;
    'no-qr'?: boolean;
    'print-tokens'?: boolean;
    help?: boolean;
    version?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        app: { type: 'string' },
        'device-url': { type: 'string' },
        'no-qr': { type: 'boolean' },
        'print-tokens': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`device-login ${VERSION}\n`);
    return 0;
  }
  if (!values.app) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const deviceUrl = values['device-url'] ?? process.env.DEVICE_URL ?? 'http://localhost:4104';
  // Ctrl-C stops the polling at once and says so, instead of killing the process mid-request.
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const result = await deviceLogin({
    deviceUrl,
    applicationAnchor: values.app,
    qr: !values['no-qr'],
    show: (text) => process.stderr.write(`${text}\n`),
    signal: stop.signal,
  });
  if (!result.ok) {
    process.stderr.write(`\n  Not signed in: ${result.words} (${result.error})\n`);
    process.stdout.write(`${JSON.stringify({ error: result.error, message: result.words })}\n`);
    return 1;
  }
  const { tokens } = result;
  process.stderr.write('\n  Approved: signed in.\n');
  const out: Record<string, unknown> = {
    applicationAnchor: tokens.applicationAnchor,
    claims: tokens.claims,
    accessTokenClaims: jwtPayload(tokens.accessToken),
    refreshTokenClaims: jwtPayload(tokens.refreshToken),
  };
  if (values['print-tokens']) {
    out.accessToken = tokens.accessToken;
    out.refreshToken = tokens.refreshToken;
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`device-login failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
