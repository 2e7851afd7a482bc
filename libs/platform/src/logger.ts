// Structured JSON logs (pino) with every credential-bearing field redacted.
import pino, { type Logger } from 'pino';

export type { Logger };

/** Members that carry a credential, wherever they sit in a logged object (top level, or one or two deep). */
const CREDENTIALS = [
  'accessToken',
  'refreshToken',
  'idToken',
  'access_token',
  'refresh_token',
  'id_token',
  'accessKeySecret',
  'clientSecret',
  'client_secret',
  'code_verifier',
  'hiddenKey',
  'confirmationKey',
  'deviceCode',
  'errandKey',
  'platformTicketHex',
  'password',
  'secret',
  'privateKey',
  'apiKey',
  'authorization',
  'cookie',
];

// pino's `*.name` matches one level down only: `{ refreshToken }` logged at the top level, or an error carrying
// the request under `err.req.headers`, would go out as written without the other two depths.
const REDACT = CREDENTIALS.flatMap((name) => [name, `*.${name}`, `*.*.${name}`]);

/** A process's logger at `level` (its LOG_LEVEL; default info); tests may give a `destination` to read lines back. */
export function createLogger(
  name: string,
  opts: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  return pino(
    {
      name,
      level: opts.level ?? 'info',
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { host: name },
    },
    opts.destination,
  );
}
