// OpenTelemetry tracing, loaded only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT, in the
// host's configuration). With tracing off nothing of the SDK is loaded: `pnpm build` emits it as a file of its own
// beside main.js (telemetry-sdk.js), read only here, and the hot paths pay one undefined check.
import http from 'node:http';
import https from 'node:https';
import express from 'express';
import Redis from 'ioredis';
import pg from 'pg';
import type { TracingSettings } from './config';
import type { TracingModules } from './telemetry-sdk';

export interface Telemetry {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Whether this process exports traces: an OTLP endpoint is configured and tracing is not switched off with the
 * SDK's own variables (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none), as the process's configuration parsed them.
 */
export function tracingConfigured(settings: TracingSettings): boolean {
  return !settings.disabled && Boolean(settings.otlpEndpoint);
}

let routeNamer: ((method: string, route: string) => void) | undefined;

/**
 * Names the current request's server span after its route (`POST /refresh`, attribute http.route). The fast
 * dispatcher calls it; Express routes are named by the Express instrumentation. Tracing off: one check, nothing else.
 */
export function nameServerSpan(method: string, route: string): void {
  routeNamer?.(method, route);
}

let started: Telemetry | undefined;

/**
 * Starts tracing for this process when `tracingConfigured()`, else returns undefined and loads nothing. The
 * instrumentations patch the very modules this process runs (passed in here), not whatever `require` would find:
 * in a built host every library is inside one bundle, where require hooks never see them. The exporter, the
 * sampler and the protocol come from `settings`, the SDK's standard OTEL_* variables as the entry's configuration
 * schema parsed them (config.ts `tracing`): nothing here reads the environment.
 */
export function startTelemetry(serviceName: string, settings: TracingSettings): Telemetry | undefined {
  if (!tracingConfigured(settings)) return undefined;
  if (started) return started;
  // A plain require of a sibling: from source it is telemetry-sdk.ts; the build keeps it out of main.js.
  const sdk = require('./telemetry-sdk') as typeof import('./telemetry-sdk');
  const modules: TracingModules = { http, https, pg, ioredis: Redis, express };
  const tracing = sdk.startTracing(serviceName, modules, settings);
  routeNamer = tracing.nameServerSpan;
  started = {
    async shutdown() {
      routeNamer = undefined;
      started = undefined;
      await tracing.shutdown();
    },
  };
  return started;
}
