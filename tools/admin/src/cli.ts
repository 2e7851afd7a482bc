// One CLI invocation as a function: argv in, one JSON document (or help text) and an exit code out (no globals).

import type { Env } from '@svc/platform';
import { COMMANDS } from './commands';
import type { AdminContext } from './context';
import { describeFailure, EXIT } from './errors';
import { UsageError } from './flags';
import { helpText, parseCommandLine } from './registry';

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
  try {
    const parsed = parseCommandLine(COMMANDS, argv);
    // Explicit help is for a person: readable text on stdout (the one place stdout is not JSON).
    if (parsed.kind === 'help') return { code: EXIT.ok, stdout: parsed.text, stderr: '' };
    ctx = makeContext(env);
    const result = await parsed.command.run(ctx, parsed.input);
    return { code: EXIT.ok, stdout: toJson(result), stderr: '' };
  } catch (err) {
    const { code, message } = describeFailure(err);
    if (err instanceof UsageError) {
      // A bare `pnpm admin`: stdout stays the one JSON error for scripts, the readable help goes to stderr.
      if (argv.length === 0) return { code, stdout: toJson({ error: message }), stderr: helpText(COMMANDS) };
      return { code, stdout: toJson({ error: message }), stderr: hintFor(argv) };
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
