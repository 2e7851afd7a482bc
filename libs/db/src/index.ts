// Database access for every host: the Prisma client factory, generated model types and the migration runner.
export {
  createPrisma,
  type Db,
  DEFAULT_DATABASE_URL,
  databaseUrl,
  runPrepared,
  type Statement,
} from './client';
export { columnsOf, type GatherOptions, gather, gatherOn, unnestParams } from './gather';
export { Prisma } from './generated/client';
export * from './generated/enums';
export type * from './generated/models';
export { migrate } from './migrate';
