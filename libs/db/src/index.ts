// Database access for every host: the Prisma client factory, generated model types and the migration runner.
export { createPrisma, databaseUrl, DEFAULT_DATABASE_URL, type Db } from './client';
export { Prisma } from './generated/client';
export type * from './generated/models';
export * from './generated/enums';
export { migrate } from './migrate';
