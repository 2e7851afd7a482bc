// How `pnpm start` shows its processes' log lines: as they are (JSON, one object a line, for a collector or a file)
// when its output is not a terminal, and on a terminal one short line each (`[connect] connect listening at ...`,
// a level word only for warnings and errors, a few fields), so start-up fits on a screen and stays readable.

/** pino's numeric levels by name, for the levels a person needs to see named. */
const LEVEL_WORDS: Record<number, string> = { 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Members every line has, or that say nothing to a person reading a terminal. */
const QUIET_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);

/** A field's value in a short line: strings and numbers as they are, anything else as JSON, cut at 120 characters. */
function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * One line of `who`'s output as `pnpm start` prints it: `[who] line` for JSON output, and on a terminal (`pretty`)
 * a JSON log line becomes `[who] WARN msg key=value ...` (the level word for warnings and above only). A line that is
 * not a JSON log line is printed as it is.
 */
export function fleetLine(who: string, line: string, pretty: boolean): string {
  if (!pretty || !line.startsWith('{')) return `[${who}] ${line}`;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `[${who}] ${line}`;
  }
  if (typeof entry.msg !== 'string' || typeof entry.level !== 'number') return `[${who}] ${line}`;
  const word = LEVEL_WORDS[entry.level];
  const fields = Object.entries(entry)
    .filter(([key, value]) => !QUIET_FIELDS.has(key) && value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${shortValue(value)}`);
  return [`[${who}]`, ...(word ? [word] : []), entry.msg, ...fields].join(' ');
}
