// Structured JSON logs (pino) with every credential-bearing field redacted.
import pino, { type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.accessToken',
  '*.refreshToken',
  '*.accessKeySecret',
  '*.hiddenKey',
  '*.confirmationKey',
  '*.deviceCode',
  '*.password',
  '*.secret',
  '*.privateKey',
];

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
