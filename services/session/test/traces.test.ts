// Traces: a session host exporting to an in-process OTLP/HTTP receiver shows a refresh as a server span under the
// caller's trace (its traceparent honoured) with its PostgreSQL children, and a replayed refresh token also with
// its Redis children (the unanswered-rotation check and the revocation's announcement). Run from source and from
// the built folder (`pnpm build`: the SDK is telemetry-sdk.js beside main.js and patches the bundled modules).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChildHost, postJson, spawnHost, testUrls, useInfra, waitUntil } from '@svc/testkit';
import { buildAll } from '../../../scripts/build';
import { freshSession } from './support';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const SERVER = 2;
const CLIENT = 3;

let receiver: Server;
let endpoint: string;
const spans: OtlpSpan[] = [];
const paths: string[] = [];
const infra = useInfra();
let host: { url: string; stop(): Promise<void> };
const built = mkdtempSync(path.join(tmpdir(), 'traces-dist-'));

const tracingEnv = () => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  // A retry allowance of 1 ms: a replay just after is a reuse, and the unanswered-rotation check reads Redis.
  REFRESH_RETRY_WINDOW_MS: '1',
});

async function fromSource() {
  const child: ChildHost = await spawnHost('services/session/src/main.ts', tracingEnv());
  return { url: child.url, stop: () => child.kill() };
}

/** `node session/main.js` from the built folder, as operators run it. */
async function fromBuild() {
  const child: ChildProcess = spawn(process.execPath, ['main.js'], {
    cwd: path.join(built, 'session'),
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: '0',
      BIND_HOST: '127.0.0.1',
      DATABASE_URL: testUrls.database,
      REDIS_URL: testUrls.redis,
      ...tracingEnv(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitUntil(async () => /"port":\d+/.test(out) || child.exitCode !== null, 60_000);
  const port = Number(/"port":(\d+)/.exec(out)?.[1]);
  if (!port) throw new Error(`the built session host did not start: ${out}`);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

beforeAll(async () => {
  // OTLP/HTTP with the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): POST /v1/traces.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 90_000);

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  rmSync(built, { recursive: true, force: true });
});

const attribute = (span: OtlpSpan, key: string) =>
  span.attributes?.find((a) => a.key === key)?.value.stringValue;

/** Every span of `traceId` under `root` (its descendants, at any depth). */
function descendants(traceId: string, root: OtlpSpan): OtlpSpan[] {
  const inTrace = spans.filter((s) => s.traceId === traceId);
  const found: OtlpSpan[] = [];
  const walk = (id: string) => {
    for (const s of inTrace.filter((x) => x.parentSpanId === id)) {
      found.push(s);
      walk(s.spanId);
    }
  };
  walk(root.spanId);
  return found;
}

const isPostgres = (s: OtlpSpan) =>
  s.kind === CLIENT && (attribute(s, 'db.system') ?? attribute(s, 'db.system.name')) === 'postgresql';
const isRedis = (s: OtlpSpan) =>
  s.kind === CLIENT && (attribute(s, 'db.system') ?? attribute(s, 'db.system.name')) === 'redis';

/** POST /refresh as a caller in trace `traceId` whose own span is `parentId`. */
async function refreshInTrace(refreshToken: string) {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  const res = await postJson(
    `${host.url}/refresh`,
    { refreshToken },
    { traceparent: `00-${traceId}-${parentId}-01` },
  );
  let server: OtlpSpan | undefined;
  await waitUntil(async () => {
    server = spans.find((s) => s.traceId === traceId && s.kind === SERVER);
    return server !== undefined;
  }, 20_000);
  return { res, traceId, parentId, server: server! };
}

describe.each([
  ['from source', fromSource],
  ['built (node session/main.js)', fromBuild],
])('a session host %s', (label, start) => {
  beforeAll(async () => {
    if (label.startsWith('built')) await buildAll(built);
    host = await start();
  }, 180_000);
  afterAll(async () => {
    await host.stop();
  });

  it('shows a refresh as a server span under the caller trace, with its PostgreSQL and Redis children', async () => {
    const { issued } = await freshSession(infra, { methods: ['ACCESS_KEY_DIRECT'] });

    const first = await refreshInTrace(issued.refreshToken);
    expect(first.res.status).toBe(200);
    // The server span continues the caller's trace: its parent is the caller's span.
    expect(first.server).toMatchObject({ traceId: first.traceId, parentSpanId: first.parentId });
    expect(first.server.name).toBe('POST /refresh');
    expect(attribute(first.server, 'http.route')).toBe('/refresh');
    await waitUntil(async () => descendants(first.traceId, first.server).some(isPostgres), 20_000);

    // The first token again, after the 1 ms allowance: a reuse. The Redis check and announcement are children too.
    const replay = await refreshInTrace(issued.refreshToken);
    expect(replay.res.status).toBe(401);
    expect(replay.server).toMatchObject({ traceId: replay.traceId, parentSpanId: replay.parentId });
    await waitUntil(async () => {
      const children = descendants(replay.traceId, replay.server);
      return children.some(isPostgres) && children.some(isRedis);
    }, 20_000);
    const children = descendants(replay.traceId, replay.server);
    expect(children.every((c) => c.traceId === replay.traceId)).toBe(true);
    expect(children.filter(isRedis).map((s) => s.name)).toEqual(
      expect.arrayContaining(['exists', 'publish']),
    );
    expect(paths.every((p) => p === '/v1/traces')).toBe(true);
  }, 60_000);
});
