// Text PostgreSQL can store: no NUL character and no lone UTF-16 surrogate. The one rule every edge uses (body
// reader, zod schemas, JWS header lookups, admin flags), so such strings are refused before any statement.
import { z } from 'zod';

declare global {
  interface String {
    /** ES2024 (Node 24 has it; the tree's TypeScript lib is ES2023). */
    isWellFormed(): boolean;
  }
}

/** True when `s` has no NUL and no unpaired surrogate (PostgreSQL refuses both in text columns). */
export function isStorableText(s: string): boolean {
  return s.indexOf('\0') === -1 && s.isWellFormed();
}

const MESSAGE = 'contains a character that cannot be stored (NUL or a lone surrogate)';

/** A zod string that only admits storable text; chain `.min()`, `.max()`, `.regex()` as on `z.string()`. */
export function storableText() {
  return z.string().refine(isStorableText, { message: MESSAGE });
}

/**
 * Walks a parsed JSON value (iteratively: a body may nest deeply) and answers whether every string in it, member
 * names included, is storable.
 */
export function isStorableValue(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isStorableText(v)) return false;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (!isStorableText(k)) return false;
        stack.push(item);
      }
    }
  }
  return true;
}
