// Every configuration variable of every process is documented where an operator looks for it, the configuration
// tables name no variable that no process reads any more, and the deployment examples (deploy/env.example, the
// kustomize overlays) set only real variables, including every public URL and the fleet's one relying party id. A process's variables are the ones its
// configuration schema reads (each `<process>ConfigFromEnv` is run over an environment that records every name
// asked for, so the list is the schema's own, not a copy); documented means written as `NAME` in README.md's
// Configuration section or anywhere in the process's own page under docs/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '@svc/platform';
import { connectConfigFromEnv } from '../services/connect/src/config';
import { deviceConfigFromEnv } from '../services/device/src/config';
import { managementConfigFromEnv } from '../services/management/src/config';
import { nativeConfigFromEnv } from '../services/native/src/config';
import { oidcConfigFromEnv } from '../services/oidc/src/config';
import { sessionConfigFromEnv } from '../services/session/src/config';
import { workerConfigFromEnv } from '../services/worker/src/config';
import { adminConfigFromEnv } from '../tools/admin/src/context';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The variables `fromEnv` asks its environment for (defaults everywhere: nothing is set). */
function variablesOf(fromEnv: (env: Env) => unknown): string[] {
  const asked = new Set<string>();
  const env = new Proxy({} as Env, {
    get(_target, name) {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  fromEnv(env);
  return [...asked].sort();
}

/** Each process, its schema, and the page under docs/ that documents its own settings. */
const PROCESSES = [
  { name: 'connect', fromEnv: connectConfigFromEnv, doc: 'docs/connect.md' },
  { name: 'native', fromEnv: nativeConfigFromEnv, doc: 'docs/native.md' },
  { name: 'session', fromEnv: sessionConfigFromEnv, doc: 'docs/session.md' },
  { name: 'device', fromEnv: deviceConfigFromEnv, doc: 'docs/device.md' },
  { name: 'oidc', fromEnv: oidcConfigFromEnv, doc: 'docs/oidc.md' },
  { name: 'management', fromEnv: managementConfigFromEnv, doc: 'docs/management.md' },
  { name: 'worker', fromEnv: workerConfigFromEnv, doc: 'docs/worker.md' },
  { name: 'admin', fromEnv: adminConfigFromEnv, doc: 'docs/admin.md' },
] as const;

/** The text of a markdown section (`## title` up to the next `## `), '' when there is none. */
function section(markdown: string, title: RegExp): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^## /.test(l) && title.test(l));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Every variable-like name written in backticks, alone or inside a longer span (`{DEVICE_REDIS_PREFIX}:poll`). */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const span of text.match(/`[^`\n]+`/g) ?? [])
    for (const name of span.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b/g) ?? []) names.add(name);
  return names;
}

/** Whole backtick spans that are exactly one variable-like name: what a configuration table lists. */
function listedIn(text: string): string[] {
  return (text.match(/`[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+`|`PORT`/g) ?? []).map((s) => s.slice(1, -1));
}

const README_CONFIGURATION = section(read('README.md'), /^## Configuration/);

/**
 * Listed in a configuration section though no schema reads them, each with the file that reads it (checked, so an
 * entry goes when its reader does): Node.js's own thread pool size, the admin CLI's debug switch, read where
 * it reports an unexpected failure, and `pnpm start`'s development mailbox ports.
 */
const READ_OUTSIDE_SCHEMAS: Record<string, string | undefined> = {
  UV_THREADPOOL_SIZE: undefined,
  ADMIN_DEBUG: 'tools/admin/src/cli.ts',
  // `pnpm start`'s own: where the development mailbox listens.
  DEV_MAILBOX_PORT: 'scripts/fleet-config.ts',
  DEV_MAILBOX_SMTP_PORT: 'scripts/fleet-config.ts',
};

describe.each(PROCESSES)('$name', ({ fromEnv, doc }) => {
  test('every variable its schema reads is documented (README Configuration, or its page under docs/)', () => {
    const documented = new Set([...namesIn(README_CONFIGURATION), ...namesIn(read(doc))]);
    const variables = variablesOf(fromEnv);
    expect(variables.length).toBeGreaterThan(5);
    expect(variables.filter((v) => !documented.has(v))).toEqual([]);
  });
});

test('the configuration sections name only variables some process reads', () => {
  for (const [name, reader] of Object.entries(READ_OUTSIDE_SCHEMAS))
    if (reader) expect([name, read(reader).includes(name)]).toEqual([name, true]);
  const read_ = new Set([
    ...PROCESSES.flatMap((p) => variablesOf(p.fromEnv)),
    ...Object.keys(READ_OUTSIDE_SCHEMAS),
  ]);
  const sections = [
    ['README.md', README_CONFIGURATION],
    ...PROCESSES.map((p) => [p.doc, section(read(p.doc), /^## (Configuration|Environment)/)]),
  ] as const;
  const stale = sections.flatMap(([file, text]) =>
    listedIn(text)
      .filter((name) => !read_.has(name))
      .map((name) => `${file}: ${name}`),
  );
  expect([...new Set(stale)]).toEqual([]);
});

/** `NAME=value` lines of an env file, or `- NAME=value` literals of a kustomize configMapGenerator. */
function assigned(text: string): string[] {
  return [...text.matchAll(/^\s*(?:- )?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
}

describe.each([
  'deploy/env.example',
  'deploy/k8s/overlays/prod/kustomization.yaml',
  'deploy/k8s/overlays/dev/kustomization.yaml',
])('%s', (file) => {
  const names = assigned(read(file));
  test('sets only variables some process reads', () => {
    const known = new Set([
      ...PROCESSES.flatMap((p) => variablesOf(p.fromEnv)),
      ...Object.keys(READ_OUTSIDE_SCHEMAS),
    ]);
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => !known.has(n))).toEqual([]);
  });
  test("sets every host's public URL and the fleet's one WebAuthn relying party id", () => {
    // Unset, WEBAUTHN_RP_ID is each page host's own host name: a passkey made on connect would not sign in on
    // the device or OIDC host (CONTRACTS: one WEBAUTHN_RP_ID, a domain they are all under).
    const wanted = ['CONNECT_URL', 'NATIVE_URL', 'SESSION_URL', 'DEVICE_URL', 'OIDC_URL', 'WEBAUTHN_RP_ID'];
    expect(wanted.filter((n) => !names.includes(n))).toEqual([]);
  });
});
