// Process entry of the OIDC host (`pnpm start:oidc`): read the configuration, open the connections, make the
// platform ID-token key set's first key when there is none, serve.
import { type Clock, serveHostProcess } from '@svc/platform';
import { createOidcApp } from './app';
import { type OidcConfig, oidcConfigFromEnv } from './config';
import { openOidcDeps } from './deps';

async function open(config: OidcConfig, clock: Clock) {
  const deps = openOidcDeps(config, clock);
  // Before listening, so a /token right after start signs. A failure here (PostgreSQL not answering yet) is not
  // fatal: readiness makes the key as soon as it can, and answers 503 until then.
  await deps
    .ensurePlatformKey()
    .catch((err: unknown) =>
      deps.logger.warn(
        { err: (err as Error).message },
        'platform ID-token key not made at start-up; readiness retries',
      ),
    );
  return deps;
}

serveHostProcess({ name: 'oidc', config: oidcConfigFromEnv, open, app: createOidcApp }, process.env);
