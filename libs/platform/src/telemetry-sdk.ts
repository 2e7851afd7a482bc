// The OpenTelemetry SDK of a host process, loaded by telemetry.ts only when tracing is configured: W3C trace
// context (an incoming traceparent is honoured), spans for HTTP (server and client), Express, PostgreSQL (pg) and
// Redis (ioredis), exported over OTLP/HTTP in batches. Built hosts keep this file apart from main.js.
import { context, propagation, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  getRPCMetadata,
  RPCType,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from './config';

/** The module objects the process runs, by the name each instrumentation knows them under. */
export interface TracingModules {
  http: object;
  https: object;
  pg: object;
  ioredis: object;
  express: object;
}

export interface Tracing {
  nameServerSpan(method: string, route: string): void;
  shutdown(): Promise<void>;
}

/** OTEL_TRACES_SAMPLER: parentbased_always_on (default) or parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG. */
function samplerFrom(settings: TracingSettings): Sampler {
  if (settings.sampler === 'parentbased_traceidratio') {
    return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.samplerRatio) });
  }
  return new ParentBasedSampler({ root: new AlwaysOnSampler() });
}

/**
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the OTLP default) or http/json, to the endpoint's
 * /v1/traces (the OTLP/HTTP path under a base endpoint), named here so the exporter reads no variable itself.
 */
function exporterFrom(settings: TracingSettings) {
  const url = `${(settings.otlpEndpoint ?? '').replace(/\/+$/, '')}/v1/traces`;
  return settings.protocol === 'http/json'
    ? new OtlpJsonExporter({ url })
    : new OtlpProtobufExporter({ url });
}

/** What this file uses of an instrumentation (the pg and ioredis ones build on another minor of the base class). */
interface Patchable {
  setTracerProvider(provider: TracerProvider): void;
  getModuleDefinitions(): { name: string; patch?: (exports: object, version?: string) => unknown }[];
}

/** Applies an instrumentation's patches to the given module objects, without require hooks. */
function patch(instrumentation: Patchable, modules: Record<string, object>): void {
  for (const definition of instrumentation.getModuleDefinitions()) {
    const exports = modules[definition.name];
    if (exports && definition.patch) definition.patch(exports, undefined);
  }
}

export function startTracing(
  serviceName: string,
  modules: TracingModules,
  settings: TracingSettings,
): Tracing {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName ?? serviceName }),
    sampler: samplerFrom(settings),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: exporterFrom(settings),
        scheduledDelayMillis: settings.scheduleDelayMs,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);

  // `enabled: false`: no require-in-the-middle hooks; the patches below apply to the modules passed in.
  const instrumentations: [Patchable, Record<string, object>][] = [
    [new HttpInstrumentation({ enabled: false }), { http: modules.http, https: modules.https }],
    [
      // The pool's connect is not a span of its own: every pooled query would carry one.
      new PgInstrumentation({ enabled: false, requireParentSpan: true, ignoreConnectSpans: true }),
      { pg: modules.pg },
    ],
    [new IORedisInstrumentation({ enabled: false, requireParentSpan: true }), { ioredis: modules.ioredis }],
    [new ExpressInstrumentation({ enabled: false }), { express: modules.express }],
  ];
  for (const [instrumentation, exports] of instrumentations) {
    instrumentation.setTracerProvider(provider);
    patch(instrumentation, exports);
  }

  return {
    nameServerSpan(method, route) {
      const active = context.active();
      const rpc = getRPCMetadata(active);
      if (rpc?.type === RPCType.HTTP) rpc.route = route;
      const span: Span | undefined = trace.getSpan(active);
      span?.updateName(`${method} ${route}`);
      span?.setAttribute(ATTR_HTTP_ROUTE, route);
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
