// Platform: configuration, logging, Redis, HTTP scaffolding, errors, rate limits, metrics and telemetry.
export * from './body';
export * from './cluster';
export * from './config';
export * from './dependencies';
export * from './errors';
export * from './fast-routes';
export * from './http';
export * from './int64';
export * from './locale';
export * from './logger';
export * from './metrics';
export * from './rate-limit';
export * from './reasons';
export * from './redis';
export * from './run-host';
export * from './telemetry';
export * from './text';
