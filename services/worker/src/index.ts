// The worker package: its configuration, jobs and BullMQ wiring, for main.ts and the tests.
export * from './config';
export * from './jobs/rotate-keys';
export * from './jobs/sweeps';
export * from './metrics';
export * from './worker';
