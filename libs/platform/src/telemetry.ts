// OpenTelemetry tracing, started only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT).

import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';

/** Starts tracing when `otlpEndpoint` is set (the SDK reads the OTEL_* variables for the exporter itself). */
export function startTelemetry(
  serviceName: string,
  otlpEndpoint: string | undefined,
): { shutdown(): Promise<void> } | undefined {
  if (!otlpEndpoint) return undefined;
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
  });
  sdk.start();
  return sdk;
}
