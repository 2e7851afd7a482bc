// The management host under test: its real app over this run's PostgreSQL and Redis, operator keys of each role
// made through the same rules as `pnpm admin operator-key create`, and a fetch that carries a key.

import { cliActor } from '@svc/audit';
import type { Env } from '@svc/platform';
import { systemClock } from '@svc/platform';
import { actingAs, createOperatorKey, type OperatorRole } from '@svc/provisioning';
import { type RunningTestHost, startTestHost, testEnv, uniqueName } from '@svc/testkit';
import { createManagementApp } from '../src/app';
import { managementConfigFromEnv } from '../src/config';
import { type OpenedManagementDeps, openManagementDeps } from '../src/deps';

export interface ManagementHost {
  url: string;
  deps: OpenedManagementDeps;
  host: RunningTestHost;
  close(): Promise<void>;
}

export function managementEnv(over: Env = {}): Env {
  return testEnv({ RATE_LIMIT_NAMESPACE: uniqueName('mgmt'), ...over });
}

export async function startManagement(env: Env = managementEnv()): Promise<ManagementHost> {
  const deps = openManagementDeps(managementConfigFromEnv(env), systemClock);
  const host = await startTestHost(createManagementApp(deps));
  return {
    url: host.url,
    deps,
    host,
    async close() {
      await host.close();
      await deps.close();
    },
  };
}

/** A new operator key of `role`; its secret. */
export async function operatorKey(host: ManagementHost, role: OperatorRole, expiresInDays?: number) {
  // Made as `pnpm admin operator-key create` makes it: by the CLI's actor.
  const made = await createOperatorKey(
    actingAs(host.deps.provisioning, cliActor({ USER: 'management-tests' })),
    { name: uniqueName(`op-${role}`), role, expiresInDays },
    systemClock,
  );
  return { id: made.operatorKey.id, secret: made.secret };
}

export interface Call {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the answer as the JSON they expect
  body: any;
  text: string;
}

/** One request with an operator key (or none), a JSON body when given. */
export async function call(
  url: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body:
      opts.body === undefined
        ? undefined
        : typeof opts.body === 'string'
          ? opts.body
          : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}
