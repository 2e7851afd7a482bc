// The command table's shape and the pure command-line parser: argv -> (command, validated input), no I/O.
import { parseArgs } from 'node:util';
import type { AdminContext } from './context';
import { Flags, type RawFlags, UsageError } from './flags';

/** The management API's methods: reads GET, creations POST, changes PATCH or POST, removals DELETE. */
export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Where the management host serves a command (services/management): one route per command, so a command cannot be
 * declared without its route. The JSON body (or, for GET, the query) holds the flags, each under its name in
 * camelCase (`--default-locale` is `defaultLocale`), a repeated flag as an array, a switch as `true`; a `:flag`
 * segment of the path carries that flag.
 */
export interface Route {
  method: RouteMethod;
  /** A literal path under `/v1/`; each `:name` segment is the flag of that name. */
  path: string;
  /** A collection read: the answer's member holding the items, paged with `?limit=` and `?cursor=` (`next`). */
  page?: string;
  /** A creation: answered 201 with `Location` from this template, each `{member}` filled from the answer or input. */
  created?: string;
  /** Owner keys only (operator keys, secret resealing); otherwise GET is for readers and every change for editors. */
  owner?: true;
}

/** A flag: `list` flags may repeat; `switch` flags take no value (e.g. `--now`); `json` names a JSON file, given over HTTP inline as the member it names. */
export interface FlagSpec {
  list?: boolean;
  switch?: boolean;
  json?: string;
}

export interface Command<I = unknown> {
  /** `resource verb`, e.g. `app create`. */
  name: string;
  /** Flags after the command name, as shown in usage. */
  synopsis: string;
  /** Every accepted flag. */
  flags: Record<string, FlagSpec>;
  /** The command's management API route. */
  http: Route;
  /** The answer is `{ lines: [...] }`, printed one JSON object per line (audit export) instead of one document. */
  jsonLines?: true;
  /** Validates the flags into the operation's input; throws UsageError. */
  parse(flags: Flags): I;
  run(ctx: AdminContext, input: I): Promise<object>;
}

/** Keeps each command's input type checked inside its own definition while the table stays homogeneous. */
export function defineCommand<I>(c: Command<I>): Command {
  return c as unknown as Command;
}

/**
 * A command of one required flag whose value is all it needs (show one row, revoke one workload, accept terms, ...):
 * `read` validates the value (by default an id), `run` acts on it.
 */
export function oneFlagCommand(c: {
  name: string;
  flag: string;
  synopsis: string;
  http: Route;
  read?: (f: Flags, flag: string) => string;
  run: (ctx: AdminContext, value: string) => Promise<object>;
}): Command {
  const read = c.read ?? ((f, flag) => f.id(flag, { required: true }));
  return defineCommand({
    name: c.name,
    synopsis: c.synopsis,
    flags: { [c.flag]: {} },
    http: c.http,
    parse: (f) => read(f, c.flag),
    run: c.run,
  });
}

export type Parsed =
  | { kind: 'help'; lines: string[]; text: string }
  | { kind: 'command'; command: Command; input: unknown };

export function usageLines(commands: readonly Command[]): string[] {
  return [
    'pnpm -s admin <resource> <verb> [--flags]   (flags that take a list repeat; --help after any command)',
    ...commands.map((c) => `pnpm -s admin ${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`),
  ];
}

/**
 * Readable help for a person: the commands grouped by resource, one per line, with how output and exit codes work.
 * It is text, not JSON: only explicit help (and a bare `pnpm admin`, on stderr) prints it.
 */
export function helpText(commands: readonly Command[], all = true): string {
  const groups = new Map<string, string[]>();
  for (const c of commands) {
    const resource = c.name.split(' ')[0]!;
    const line = `  pnpm -s admin ${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`;
    groups.set(resource, [...(groups.get(resource) ?? []), line]);
  }
  const body = [...groups.values()].map((lines) => lines.join('\n')).join('\n\n');
  if (!all) return `usage:\n${body}\n`;
  return [
    'usage: pnpm -s admin <resource> <verb> [--flags]',
    '',
    'Each command prints one JSON object on stdout and exits 0; on failure {"error":"..."} and exit 1 (refused),',
    '2 (usage) or 3 (cannot run). Flags that take a list repeat.',
    'Add --help after a resource or a command for its usage alone; docs/admin.md has every command with output.',
    'Add --format table to any command for a table a person reads; JSON stays the default, for scripts.',
    '',
    `${body}\n`,
  ].join('\n');
}

const HELP = new Set(['--help', '-h', 'help']);

/** Resolves `argv` to a command and its validated input, or to help text. Throws UsageError. */
export function parseCommandLine(commands: readonly Command[], argv: readonly string[]): Parsed {
  const [resource, verb, ...rest] = argv;
  if (resource === undefined) throw new UsageError('no command given');
  if (HELP.has(resource)) return help(commands, true);
  const forResource = commands.filter((c) => c.name.startsWith(`${resource} `));
  if (forResource.length === 0) throw new UsageError(`unknown command ${resource}`);
  if (verb === undefined || HELP.has(verb)) {
    if (verb === undefined) throw new UsageError(`${resource} needs a verb: ${verbs(forResource)}`);
    return help(forResource, false);
  }
  // A command of a sub-resource has three words (`oidc-client registration-token create`).
  const sub = rest[0] !== undefined && !rest[0].startsWith('-') ? rest[0] : undefined;
  const nested = sub ? forResource.find((c) => c.name === `${resource} ${verb} ${sub}`) : undefined;
  if (nested) rest.shift();
  const command = nested ?? forResource.find((c) => c.name === `${resource} ${verb}`);
  if (!command)
    throw new UsageError(`unknown command ${resource} ${verb}; ${resource} takes ${verbs(forResource)}`);
  if (rest.some((a) => a === '--help' || a === '-h')) return help([command], false);
  return { kind: 'command', command, input: command.parse(new Flags(readFlags(command, rest))) };
}

function help(commands: readonly Command[], all: boolean): Parsed {
  return { kind: 'help', lines: usageLines(commands), text: helpText(commands, all) };
}

function verbs(commands: readonly Command[]): string {
  return [...new Set(commands.map((c) => c.name.split(' ').slice(1).join(' ')))].join(', ');
}

/** node:util parseArgs in strict mode, with its errors reworded and repeats of single-valued flags refused. */
function readFlags(command: Command, args: string[]): RawFlags {
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([name, f]) => [
      name,
      { type: f.switch ? ('boolean' as const) : ('string' as const), multiple: !!f.list },
    ]),
  );
  const parse = () => parseArgs({ args, options, strict: true, allowPositionals: false, tokens: true });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    throw new UsageError(rewordParseError(err, command));
  }
  const counts = new Map<string, number>();
  for (const t of parsed.tokens) {
    if (t.kind === 'option') counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  }
  for (const [name, n] of counts) {
    if (n > 1 && !command.flags[name]?.list) throw new UsageError(`--${name} may be given only once`);
  }
  return parsed.values as RawFlags;
}

function rewordParseError(err: unknown, command: Command): string {
  const e = err as { code?: string; message?: string };
  const quoted = /'([^']+)'/.exec(e.message ?? '')?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${quoted} for ${command.name}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${quoted} for ${command.name} (flags look like --name VALUE)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = /--[\w-]+/.exec(e.message ?? '')?.[0] ?? 'a flag';
      return `${flag} needs a value (write ${flag}=VALUE if the value starts with '-')`;
    }
    default:
      return `cannot parse the flags of ${command.name}`;
  }
}
