// A host's logger whose lines a test can read back (parsed JSON), to check what a host logs during an outage.
import { createLogger, type Logger } from '@svc/platform';

export interface CapturedLog {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines: Record<string, unknown>[];
}

/** The hosts' logger (same redaction) at `level`, writing into `lines` instead of stdout. */
export function captureLogger(name: string, level = 'debug'): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(name, {
    level,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}
