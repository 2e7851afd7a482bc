// Prisma Client factory over the pg driver adapter: no native engine needed, works offline.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';

export function databaseUrl(): string {
  return process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

/** Creates a Prisma client with a bounded connection pool (DB_POOL_MAX, default 10). */
export function createPrisma(url = databaseUrl()): PrismaClient {
  const max = Number(process.env.DB_POOL_MAX ?? 10);
  const adapter = new PrismaPg({ connectionString: url, max });
  return new PrismaClient({ adapter });
}

export type Db = PrismaClient;
