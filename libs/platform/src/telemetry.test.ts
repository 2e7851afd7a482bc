// Tracing takes its settings from the entry's parsed configuration, never from process.env: the SDK's OTEL_*
// variables are read by the configuration schema (a bad one fails the start naming it), and whether a process
// traces follows those settings whatever the process's own environment says.
import {
  ConfigError,
  type Env,
  type ProcessConfig,
  processConfigCheck,
  processConfigOf,
  processVars,
  readConfig,
} from './config';
import { startTelemetry, tracingConfigured } from './telemetry';

const read = (env: Env): ProcessConfig =>
  readConfig(processVars(false), env, (v) => processConfigOf(false, v), processConfigCheck);

test('the schema reads the tracing settings, with the SDK defaults when unset', () => {
  expect(read({}).tracing).toEqual({
    otlpEndpoint: undefined,
    disabled: false,
    serviceName: undefined,
    protocol: 'http/protobuf',
    sampler: 'parentbased_always_on',
    samplerRatio: 1,
    scheduleDelayMs: 5000,
  });
  expect(
    read({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'session-eu',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }).tracing,
  ).toEqual({
    otlpEndpoint: 'http://collector:4318',
    disabled: false,
    serviceName: 'session-eu',
    protocol: 'http/json',
    sampler: 'parentbased_traceidratio',
    samplerRatio: 0.25,
    scheduleDelayMs: 100,
  });
});

test('OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none switch tracing off even with an endpoint', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  expect(tracingConfigured(read(endpoint).tracing)).toBe(true);
  expect(tracingConfigured(read({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing)).toBe(false);
  expect(tracingConfigured(read({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing)).toBe(false);
  expect(tracingConfigured(read({}).tracing)).toBe(false);
});

test('a bad tracing variable fails the configuration, naming it and not its value', () => {
  for (const [name, value] of [
    ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_SDK_DISABLED', 'yes'],
  ] as const) {
    let error: unknown;
    try {
      read({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect([name, (error as Error).message.includes(name), (error as Error).message.includes(value)]).toEqual(
      [name, true, false],
    );
  }
});

test("the process's own environment does not switch tracing on: only the settings given do", () => {
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:1';
  try {
    expect(startTelemetry('test', read({}).tracing)).toBeUndefined();
  } finally {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  }
});
