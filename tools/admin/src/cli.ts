// One CLI invocation as a function: argv in, one JSON document (or help text) and an exit code out (no globals).

import type { Env } from '@svc/platform';
import {
  type AdminContext,
  COMMANDS,
  helpText,
  parseCommandLine,
  UsageError,
} from '@svc/provisioning/commands';
import { describeFailure, EXIT } from './errors';
import { renderTable } from './table';

export const FORMATS = ['json', 'table'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * Takes the tool-wide `--format json|table` (or `--format=...`) out of argv, wherever it stands after the command:
 * JSON, the contract, by default; a table for a person. Throws UsageError for another value or a repeat.
 */
export function takeFormat(argv: readonly string[]): { format: Format; rest: string[] } {
  const rest: string[] = [];
  let format: Format | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let value: string | undefined;
    if (a === '--format') value = argv[++i] ?? '';
    else if (a.startsWith('--format=')) value = a.slice('--format='.length);
    else {
      rest.push(a);
      continue;
    }
    if (format) throw new UsageError('--format may be given only once');
    if (!(FORMATS as readonly string[]).includes(value))
      throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
    format = value as Format;
  }
  return { format: format ?? 'json', rest };
}

export interface CliResult {
  code: number;
  /** The single JSON document for stdout, or the readable help text after an explicit --help. */
  stdout: string;
  /** Hints for a human on stderr (usage of the command after a usage error, debug details on request). */
  stderr: string;
}

/** Serializes output; bigint values (int64 platform app ids) print as exact decimal strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

export async function runCli(
  argv: readonly string[],
  env: Env,
  makeContext: (env: Env) => AdminContext,
): Promise<CliResult> {
  let ctx: AdminContext | undefined;
  let format: Format = 'json';
  let args: readonly string[] = argv;
  try {
    const taken = takeFormat(argv);
    format = taken.format;
    args = taken.rest;
    const parsed = parseCommandLine(COMMANDS, args);
    // Explicit help is for a person: readable text on stdout (the one place stdout is not JSON).
    if (parsed.kind === 'help') return { code: EXIT.ok, stdout: parsed.text, stderr: '' };
    ctx = makeContext(env);
    const result = await parsed.command.run(ctx, parsed.input);
    // Through JSON first, so the table shows exactly what the JSON says (dates and bigints as printed there).
    if (parsed.command.jsonLines && format === 'json') {
      // One JSON object per line (audit export), for a SIEM to read line by line.
      const lines = (result as { lines: unknown[] }).lines;
      return { code: EXIT.ok, stdout: lines.map((l) => toJson(l)).join('\n'), stderr: '' };
    }
    const stdout = format === 'table' ? renderTable(JSON.parse(toJson(result))) : toJson(result);
    return { code: EXIT.ok, stdout, stderr: '' };
  } catch (err) {
    const { code, message } = describeFailure(err);
    // A person asked for a table: the refusal in words, not a JSON object.
    if (format === 'table')
      return { code, stdout: `error: ${message}`, stderr: err instanceof UsageError ? hintFor(args) : '' };
    if (err instanceof UsageError) {
      // A bare `pnpm admin`: stdout stays the one JSON error for scripts, the readable help goes to stderr.
      if (args.length === 0) return { code, stdout: toJson({ error: message }), stderr: helpText(COMMANDS) };
      return { code, stdout: toJson({ error: message }), stderr: hintFor(args) };
    }
    const debug = env.ADMIN_DEBUG === '1' ? `${(err as Error)?.stack ?? String(err)}\n` : '';
    return { code, stdout: toJson({ error: message }), stderr: debug };
  } finally {
    await ctx?.close();
  }
}

function hintFor(argv: readonly string[]): string {
  const [resource, verb] = argv;
  const exact = COMMANDS.filter((c) => c.name === `${resource} ${verb}`);
  const related = exact.length ? exact : COMMANDS.filter((c) => c.name.startsWith(`${resource} `));
  return related.length ? helpText(related, false) : 'usage:\n  pnpm -s admin --help\n';
}
