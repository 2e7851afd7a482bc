// `--format table`: the same result a command prints as JSON, laid out for a person. A list of objects is a grid,
// one row each; an object is a two-column grid of its fields; a field holding a list of objects (an application's
// rules) follows as its own titled grid. Nothing is left out, so JSON stays the contract and the table only a view.
// Columns are padded by display width (display-width.ts): a Chinese name takes two columns a character.

import { displayWidth, padDisplay } from './display-width';

type Row = Record<string, unknown>;

function isRecord(v: unknown): v is Row {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function isListOfRecords(v: unknown): v is Row[] {
  return Array.isArray(v) && v.length > 0 && v.every(isRecord);
}

/** One cell: scalars as they read, lists of scalars comma-separated, a small object as k=v pairs, nothing as -. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.length === 0 ? '-' : v.map(cell).join(', ');
  if (isRecord(v)) {
    return Object.entries(v)
      .map(([k, x]) => `${k}=${isRecord(x) || Array.isArray(x) ? JSON.stringify(x, bigints) : cell(x)}`)
      .join(', ');
  }
  // One line per cell: a line break or tab in stored text would break the grid.
  return String(v).replace(/[\r\n\t]+/g, ' ');
}

function bigints(_k: string, v: unknown) {
  return typeof v === 'bigint' ? v.toString() : v;
}

function grid(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) =>
    Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : padDisplay(c, widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function listGrid(rows: Row[]): string {
  const columns: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  return grid(
    columns,
    rows.map((r) => columns.map((c) => cell(r[c]))),
  );
}

/** An object's scalar fields as a FIELD/VALUE grid, then each list of objects in it as a titled grid. */
function objectSections(title: string, obj: Row): string[] {
  const fields: string[][] = [];
  const nested: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (isListOfRecords(v)) nested.push(...section(`${title}.${k}`, v));
    else if (isRecord(v) && Object.values(v).some(isListOfRecords))
      nested.push(...objectSections(`${title}.${k}`, v));
    else fields.push([k, cell(v)]);
  }
  return [`${title}\n${grid(['FIELD', 'VALUE'], fields)}`, ...nested];
}

function section(title: string, v: unknown): string[] {
  if (Array.isArray(v))
    return [
      v.length === 0
        ? `${title}\n(none)`
        : `${title}\n${v.every(isRecord) ? listGrid(v) : v.map(cell).join('\n')}`,
    ];
  if (isRecord(v)) return objectSections(title, v);
  return [`${title}\n${cell(v)}`];
}

/** Renders one command's result; `{"applications":[...]}` is titled "applications", and so on. */
export function renderTable(result: object): string {
  const entries = Object.entries(result);
  const [only] = entries;
  // The usual shape, one wrapper key ({applications}, {application}, {client}): its value under its name.
  if (entries.length === 1 && only && (Array.isArray(only[1]) || isRecord(only[1]))) {
    return `${section(only[0], only[1]).join('\n\n')}\n`;
  }
  return `${objectSections('result', result as Row).join('\n\n')}\n`;
}
