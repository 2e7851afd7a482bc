// The admin commands as one description both adapters serve: `pnpm admin` parses them from flags, the management
// host from JSON and serves each at the route it declares (`http`). A command cannot be declared without its route.
export * from './context';
export * from './flags';
export * from './registry';
export * from './table';
