// Typed, validated access to one command's flags; every malformed value is a UsageError (exit 2) naming the flag.
import { isUtf8 } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import { isStorableText, isStorableValue, parsePositiveInt64 } from '@svc/platform';

/** The command line itself is wrong: unknown command or flag, missing or repeated flag, malformed value. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ANCHOR_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const LOCALE_PATTERN = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
// Control characters (C0, DEL, C1) have no place in names, emails or ids an operator types.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_TEXT = 200;

/** No control character, and nothing PostgreSQL cannot store (NUL, a lone surrogate). */
function plainText(v: string): boolean {
  return !CONTROL.test(v) && isStorableText(v);
}
const MAX_FILE_BYTES = 1024 * 1024;

export type RawFlags = Record<string, string | string[] | boolean | undefined>;

export class Flags {
  /**
   * `inline`: the JSON values of file flags (`--jwk-file`) given in the request itself, as the management API takes
   * them; the CLI reads files instead.
   */
  constructor(
    private readonly raw: RawFlags,
    private readonly inline: Readonly<Record<string, unknown>> = {},
  ) {}

  /** A single-valued flag that must be present and non-empty. */
  required(name: string): string {
    const v = this.optional(name);
    if (v === undefined) throw new UsageError(`missing --${name}`);
    return v;
  }

  /** A switch (a flag declared `switch`, given without a value): true when present. */
  switch(name: string): boolean {
    return this.raw[name] === true;
  }

  /** A single-valued flag, undefined when absent; present but blank is an error. */
  optional(name: string): string | undefined {
    const v = this.raw[name];
    if (v === undefined) return undefined;
    if (typeof v === 'boolean') throw new UsageError(`--${name} needs a value`);
    if (Array.isArray(v)) throw new UsageError(`--${name} may be given only once`);
    const t = v.trim();
    if (!t) throw new UsageError(`--${name} must not be empty`);
    if (!plainText(t)) throw new UsageError(`--${name} must not contain control characters`);
    if (t.length > MAX_TEXT * 10) throw new UsageError(`--${name} is too long`);
    return t;
  }

  /** Every value of a repeatable flag, in order; a repeated value is an error. */
  list(name: string): string[] {
    const v = this.raw[name];
    if (typeof v === 'boolean') throw new UsageError(`--${name} needs a value`);
    const values = v === undefined ? [] : Array.isArray(v) ? v : [v];
    const seen = new Set<string>();
    return values.map((x) => {
      const t = x.trim();
      if (!t) throw new UsageError(`--${name} must not be empty`);
      if (!plainText(t)) throw new UsageError(`--${name} must not contain control characters`);
      if (seen.has(t)) throw new UsageError(`--${name} ${t} is given twice`);
      seen.add(t);
      return t;
    });
  }

  /** A display name: 1 to 200 characters. */
  text(name: string, opts: { required: true }): string;
  text(name: string, opts?: { required?: boolean }): string | undefined;
  text(name: string, opts: { required?: boolean } = {}): string | undefined {
    const v = opts.required ? this.required(name) : this.optional(name);
    if (v !== undefined && v.length > MAX_TEXT)
      throw new UsageError(`--${name} must be at most ${MAX_TEXT} characters`);
    return v;
  }

  /** A value that must match a pattern, described to the operator as `what`. */
  matching(name: string, pattern: RegExp, what: string, opts: { required: true }): string;
  matching(name: string, pattern: RegExp, what: string, opts?: { required?: boolean }): string | undefined;
  matching(
    name: string,
    pattern: RegExp,
    what: string,
    opts: { required?: boolean } = {},
  ): string | undefined {
    const v = opts.required ? this.required(name) : this.optional(name);
    if (v !== undefined && !pattern.test(v)) throw new UsageError(`--${name} must be ${what}`);
    return v;
  }

  /** An organization, sector, account, agent or automation id. */
  id(name: string, opts: { required: true }): string;
  id(name: string, opts?: { required?: boolean }): string | undefined;
  id(name: string, opts: { required?: boolean } = {}): string | undefined {
    const v = opts.required ? this.required(name) : this.optional(name);
    if (v !== undefined && !UUID_PATTERN.test(v)) throw new UsageError(`--${name} must be an id (a UUID)`);
    return v?.toLowerCase();
  }

  /** An applicationAnchor: strict kebab-case, 3 to 64 characters. */
  anchor(name: string): string {
    const v = this.required(name);
    if (v.length < 3 || v.length > 64 || !ANCHOR_PATTERN.test(v)) {
      throw new UsageError(
        `--${name} must be an application anchor: kebab-case, 3 to 64 characters, starting with a lowercase letter`,
      );
    }
    return v;
  }

  oneOf<T extends string>(name: string, values: readonly T[], opts: { required: true }): T;
  oneOf<T extends string>(name: string, values: readonly T[], opts?: { required?: boolean }): T | undefined;
  oneOf<T extends string>(
    name: string,
    values: readonly T[],
    opts: { required?: boolean } = {},
  ): T | undefined {
    const v = opts.required ? this.required(name) : this.optional(name);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v))
      throw new UsageError(`--${name} must be one of ${values.join(', ')}`);
    return v as T;
  }

  /** A decimal integer within bounds (no signs, exponents or fractions). */
  int(name: string, bounds: { min: number; max: number }): number | undefined {
    const v = this.optional(name);
    if (v === undefined) return undefined;
    const n = /^\d{1,15}$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < bounds.min || n > bounds.max) {
      throw new UsageError(`--${name} must be an integer from ${bounds.min} to ${bounds.max}`);
    }
    return n;
  }

  /** Repeated int64 ids (>= 1), kept as bigint so ids above 2^53 survive exactly. */
  bigints(name: string): bigint[] {
    return this.list(name).map((v) => {
      // The same rule as the wire's platformAppId (libs/platform int64): canonical decimal, 1..2^63-1.
      const n = parsePositiveInt64(v);
      if (n === undefined) {
        throw new UsageError(`--${name} must be an integer from 1 to 9223372036854775807 (got ${v})`);
      }
      return n;
    });
  }

  /** Repeated `LOCALE=TEXT` pairs, e.g. `--name en-US=Example --name zh-CN=示例`. */
  localized(name: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const pair of this.raw[name] === undefined ? [] : this.listRaw(name)) {
      const eq = pair.indexOf('=');
      const locale = eq > 0 ? pair.slice(0, eq).trim() : '';
      const text = eq > 0 ? pair.slice(eq + 1).trim() : '';
      if (!LOCALE_PATTERN.test(locale) || !text) {
        throw new UsageError(`--${name} must look like LOCALE=TEXT, e.g. --${name} en-US=Example`);
      }
      if (!plainText(text)) throw new UsageError(`--${name} must not contain control characters`);
      if (text.length > MAX_TEXT)
        throw new UsageError(`--${name} ${locale} must be at most ${MAX_TEXT} characters`);
      if (locale in out) throw new UsageError(`--${name} ${locale}=... is given twice`);
      out[locale] = text;
    }
    return out;
  }

  /** A locale tag such as en-US. */
  locale(name: string): string | undefined {
    const v = this.optional(name);
    if (v !== undefined && !LOCALE_PATTERN.test(v))
      throw new UsageError(`--${name} must be a locale tag such as en-US`);
    return v;
  }

  /** Reads a regular file of at most 1 MiB holding one JSON value. */
  jsonFile(name: string): unknown {
    if (Object.hasOwn(this.inline, name)) return this.inlineJson(name);
    const path = this.required(name);
    let text: string;
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new UsageError(`--${name} ${path} is not a regular file`);
      if (st.size > MAX_FILE_BYTES) throw new UsageError(`--${name} ${path} is larger than 1 MiB`);
      const bytes = readFileSync(path);
      if (!isUtf8(bytes)) throw new UsageError(`--${name} ${path} is not valid UTF-8`);
      text = bytes.toString('utf8');
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : 'cannot read it';
      throw new UsageError(`--${name} ${path}: ${why}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UsageError(`--${name} ${path} does not hold valid JSON`);
    }
    if (!isStorableValue(value)) {
      throw new UsageError(
        `--${name} ${path} holds a NUL character or a lone surrogate, which cannot be stored`,
      );
    }
    return value;
  }

  /** A file flag's JSON value given inline (the management API): held to what a file would be held to. */
  private inlineJson(name: string): unknown {
    const value = this.inline[name];
    if (value === undefined || value === null) throw new UsageError(`missing --${name}`);
    if (!isStorableValue(value))
      throw new UsageError(`--${name} holds a NUL character or a lone surrogate, which cannot be stored`);
    if (Buffer.byteLength(JSON.stringify(value)) > MAX_FILE_BYTES)
      throw new UsageError(`--${name} is larger than 1 MiB`);
    return value;
  }

  private listRaw(name: string): string[] {
    const v = this.raw[name];
    if (typeof v === 'boolean') throw new UsageError(`--${name} needs a value`);
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  }
}
