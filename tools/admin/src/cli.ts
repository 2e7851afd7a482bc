// One CLI invocation as a function: argv in, exactly one JSON document and an exit code out (no process globals).

import type { Env } from '@svc/platform';
import { COMMANDS } from './commands';
import type { AdminContext } from './context';
import { describeFailure, EXIT } from './errors';
import { UsageError } from './flags';
import { parseCommandLine, usageLines } from './registry';

export interface CliResult {
  code: number;
  /** The single JSON document for stdout. */
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
    if (parsed.kind === 'help') return { code: EXIT.ok, stdout: toJson({ usage: parsed.lines }), stderr: '' };
    ctx = makeContext(env);
    const result = await parsed.command.run(ctx, parsed.input);
    return { code: EXIT.ok, stdout: toJson(result), stderr: '' };
  } catch (err) {
    const { code, message } = describeFailure(err);
    if (err instanceof UsageError) {
      // The full usage goes with the error so an operator who typed nothing learns what exists.
      const body = argv.length === 0 ? { error: message, usage: usageLines(COMMANDS) } : { error: message };
      return { code, stdout: toJson(body), stderr: argv.length === 0 ? '' : hintFor(argv) };
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
  const lines = related.length ? usageLines(related).slice(1) : ['pnpm -s admin --help'];
  return `usage:\n  ${lines.join('\n  ')}\n`;
}
