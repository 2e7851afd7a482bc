// A command's input over HTTP: the path's `:flag` segments, then the JSON body's members (or, for GET, the query's
// parameters), each the flag of the same name in camelCase, turned into the flags the CLI would have parsed, so that
// both adapters validate with the command's one `parse`. A malformed input is 400 with a JSON Pointer at the member.
import { type InputError, ProblemError } from '@svc/platform';
import { type Command, Flags, type RawFlags, UsageError } from '@svc/provisioning/commands';

/** `default-locale` -> `defaultLocale`. */
export const memberOf = (flag: string): string =>
  flag.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The member names a command takes, each with its flag: the camelCase name, or a JSON file flag's inline name. */
export function membersOf(command: Command): Map<string, string> {
  const members = new Map<string, string>();
  for (const [flag, spec] of Object.entries(command.flags)) members.set(spec.json ?? memberOf(flag), flag);
  return members;
}

const bad = (errors: InputError[], detail?: string) =>
  new ProblemError('invalid-input', { detail: detail ?? errors.map((e) => e.detail).join('; '), errors });

/** One member's value as the flag's raw value: strings (or integers, written as decimals), lists, switches. */
function rawValue(flag: string, spec: Command['flags'][string], member: string, value: unknown) {
  const pointer = `/${member}`;
  const text = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    throw bad([{ pointer, detail: `${member} must be a string${spec.list ? ' or a list of strings' : ''}` }]);
  };
  if (spec.switch) {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw bad([{ pointer, detail: `${member} must be true or false` }]);
  }
  if (spec.list) return (Array.isArray(value) ? value : [value]).map(text);
  if (Array.isArray(value)) throw bad([{ pointer, detail: `${member} takes one value, not a list` }]);
  void flag;
  return text(value);
}

/**
 * The flags of one request. `params` are the path's segments (by flag name); `members` the body's or query's
 * members. A member the command does not take, or one that contradicts the path, is refused.
 */
export function flagsOf(
  command: Command,
  params: Record<string, string>,
  members: Record<string, unknown>,
  reserved: ReadonlySet<string> = new Set(),
): Flags {
  const names = membersOf(command);
  const raw: RawFlags = {};
  const inline: Record<string, unknown> = {};
  const errors: InputError[] = [];
  for (const [flag, value] of Object.entries(params)) raw[flag] = value;
  for (const [member, value] of Object.entries(members)) {
    if (reserved.has(member)) continue;
    const flag = names.get(member);
    if (!flag) {
      errors.push({ pointer: `/${member}`, detail: `${member} is not an input of ${command.name}` });
      continue;
    }
    if (Object.hasOwn(params, flag)) {
      if (value !== params[flag])
        errors.push({
          pointer: `/${member}`,
          detail: `${member} is given by the path; leave it out of the body`,
        });
      continue;
    }
    const spec = command.flags[flag]!;
    if (spec.json) inline[flag] = value;
    else if (value !== null) {
      const v = rawValue(flag, spec, member, value);
      if (v !== false) raw[flag] = v;
    }
  }
  if (errors.length) throw bad(errors);
  return new Flags(raw, inline);
}

/**
 * A CLI message in the API's words: each `--flag` becomes its member name, and the member it names is the error's
 * pointer (the body itself when it names none).
 */
export function inApiWords(command: Command, message: string): { detail: string; pointer: string } {
  let pointer = '';
  const detail = message.replace(/--([a-z][a-z0-9-]*)/g, (whole, flag: string) => {
    const spec = command.flags[flag];
    if (!spec) return whole;
    const member = spec.json ?? memberOf(flag);
    pointer ||= `/${member}`;
    return member;
  });
  return { detail, pointer };
}

/** Parses a request's flags with the command's own rules; a UsageError becomes 400 pointing at the member. */
export function parseInput(command: Command, flags: Flags): unknown {
  try {
    return command.parse(flags);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const { detail, pointer } = inApiWords(command, err.message);
    throw bad([{ pointer, detail }], detail);
  }
}
