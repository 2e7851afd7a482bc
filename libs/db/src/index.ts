// Database access for every host: the Prisma client factory, generated model types and the migration runner.
export {
  createPrisma,
  type Db,
  type DbBounds,
  DEFAULT_DATABASE_URL,
  DEFAULT_DB_BOUNDS,
  dbBoundsOf,
  paramsOf,
  poolOf,
  runPrepared,
  STATEMENT_MARGIN_MS,
  type Statement,
} from './client';
export { columnsOf, type GatherOptions, gather, gatherOn, unnestParams } from './gather';
export { Prisma } from './generated/client';
export * from './generated/enums';
export type * from './generated/models';
export { migrate } from './migrate';
