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

/** A host's logger; tests may give a `level` and a `destination` to read the lines back. */
export function createLogger(
  name: string,
  opts: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  return pino(
    {
      name,
      level: opts.level ?? process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { host: name },
    },
    opts.destination,
  );
}
