// The example's settings (CONTRACTS, "Application SDK and example application"): its port and anchor, the files
// `pnpm demo` writes, and the fleet's own URLs with the fleet's defaults.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { JWK } from '@signin-service/node';

export interface ExampleConfig {
  port: number;
  /** The interface to listen on: loopback unless HOST says otherwise. */
  host: string;
  /** Where browsers reach this site (PUBLIC_URL): https gives `__Host-` Secure cookies; default http://localhost:PORT. */
  publicUrl: string;
  applicationAnchor: string;
  connectUrl: string;
  sessionUrl: string;
  oidcUrl: string;
  issuer: string;
  /** The demo application's client private key (Ed25519 JWK with `d` and its registered `kid`), if written. */
  clientKey?: JWK;
  /** The demo OIDC client (`{clientId, clientSecret?, redirectUris}`), if written. */
  oidcClient?: { clientId: string; clientSecret?: string; redirectUris: string[] };
  /** Why a file could not be read, to show on the page instead of a stack trace. */
  problems: string[];
}

function readJson<T>(file: string, what: string, problems: string[]): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    problems.push(`${what} could not be read from ${file}: run \`pnpm demo\` first`);
    return undefined;
  }
}

export function exampleConfigFromEnv(env: Record<string, string | undefined>): ExampleConfig {
  const demoDir = env.DEMO_DIR || '.demo';
  const problems: string[] = [];
  const port = Number(env.PORT || 4180);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('PORT must be a port number');
  return {
    port,
    host: env.HOST || '127.0.0.1',
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    applicationAnchor: env.APP_ANCHOR || 'demo-app',
    connectUrl: env.CONNECT_URL || 'http://localhost:4101',
    sessionUrl: env.SESSION_URL || 'http://localhost:4103',
    oidcUrl: env.OIDC_URL || 'http://localhost:4105',
    issuer: env.ISSUER_URL || 'https://issuer.local.test',
    clientKey: readJson<JWK>(
      env.CLIENT_KEY_FILE || path.join(demoDir, 'client-key.jwk.json'),
      'The client key',
      problems,
    ),
    oidcClient: readJson(
      env.OIDC_CLIENT_FILE || path.join(demoDir, 'oidc-client.json'),
      'The OIDC client',
      problems,
    ),
    problems,
  };
}
