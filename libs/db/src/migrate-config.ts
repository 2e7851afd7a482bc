// The migration CLI's configuration: its environment parsed once, at its entry, through one small schema (the
// tool reads no variable anywhere else). A bad value fails naming the variable, never showing the value (a
// DATABASE_URL carries a password).
import { z } from 'zod';
import { DEFAULT_DATABASE_URL } from './client';

export interface MigrateConfig {
  /** Where to migrate (DATABASE_URL): a postgres:// or postgresql:// URL; the development database when unset. */
  databaseUrl: string;
}

const postgresUrl = z
  .string()
  .refine((raw) => URL.canParse(raw) && ['postgres:', 'postgresql:'].includes(new URL(raw).protocol), {
    message: 'must be a postgres:// or postgresql:// URL',
  })
  .refine((raw) => !URL.canParse(raw) || new URL(raw).pathname.length > 1, {
    message: 'must name a database',
  });

const MigrateEnv = z.object({ DATABASE_URL: postgresUrl.default(DEFAULT_DATABASE_URL) });

/** Reads the CLI's environment through its schema; throws one Error naming every bad variable. */
export function migrateConfigFromEnv(env: Record<string, string | undefined>): MigrateConfig {
  const parsed = MigrateEnv.safeParse({ DATABASE_URL: env.DATABASE_URL });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  return { databaseUrl: parsed.data.DATABASE_URL };
}
