// The management host's endpoint table: one endpoint per admin command (routes/command-routes.ts), its OpenAPI
// document, and problem details for a /v1/ path no route serves (404) or a method it does not take (405).
import type { RequestListener } from 'node:http';
import {
  type HostAppOptions,
  type HostTable,
  PROBLEM_TYPE,
  ProblemError,
  SECURITY_HEADERS,
  serveEndpoints,
} from '@svc/platform';
import { COMMANDS } from '@svc/provisioning/commands';
import type { ManagementDeps } from './deps';
import { commandEndpoints } from './routes/command-routes';
import { managementOpenApi } from './routes/openapi';

export function managementTable(deps: ManagementDeps): HostTable {
  return { endpoints: commandEndpoints(deps, COMMANDS), openapi: managementOpenApi(COMMANDS) };
}

function appOptions(deps: ManagementDeps): HostAppOptions {
  return {
    name: 'management',
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.config.trustProxy,
    dependencies: deps.dependencies,
    async readiness() {
      if (!(await deps.dependencies.check())) throw new Error('a dependency is down');
    },
  };
}

/** A path pattern of the table as a regular expression over one request path. */
const patternOf = (path: string) =>
  new RegExp(
    `^${path
      .split('/')
      .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}$`,
  );

export function createManagementApp(deps: ManagementDeps): RequestListener {
  const table = managementTable(deps);
  const served = serveEndpoints(appOptions(deps), table);
  const routes = table.endpoints.map((e) => ({ method: e.method, pattern: patternOf(e.path) }));
  return (req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    if (path.startsWith('/v1/') || path === '/v1') {
      const here = routes.filter((r) => r.pattern.test(path));
      if (!here.some((r) => r.method === req.method)) {
        const allowed = [...new Set(here.map((r) => r.method))].sort();
        const p = allowed.length
          ? new ProblemError('method-not-allowed', { detail: `${path} takes ${allowed.join(', ')}` })
          : new ProblemError('not-found', {
              detail: `no route ${path}; GET /openapi.json lists every route`,
            });
        const body = Buffer.from(JSON.stringify(p.body()));
        res.writeHead(p.status, {
          ...Object.fromEntries(SECURITY_HEADERS),
          'Content-Type': PROBLEM_TYPE,
          'Content-Length': body.length,
          'Cache-Control': 'no-store',
          ...(allowed.length ? { Allow: allowed.join(', ') } : {}),
        });
        res.end(body);
        return;
      }
    }
    served(req, res);
  };
}
