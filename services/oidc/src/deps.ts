// Everything the OIDC host needs, built once per process from the environment: the issuance core (application
// access tokens), the key ring (the platform OIDC key set beside the application keys), the client cache and the
// host's own settings.
import { type ApplicationCache, type IssuanceDeps, openHostCore } from '@svc/issuance';
import { jwksMaxAgeSeconds } from '@svc/keyring';
import { envPositiveInt, hostUrl, type Logger, type Metrics, type Redis } from '@svc/platform';
import { type OidcPageParts, openOidcPageParts } from './pages-config';
import { type ClientStore, createClientStore } from './store/clients';
import { type CodeStore, createCodeStore } from './store/codes';
import { createOidcSessionStore, type OidcSessionStore } from './store/oidc-sessions';
import { createSignInSessions, type SignInSessions } from './store/sign-in-sessions';

export interface OidcSettings {
  /** The OpenID Provider's issuer and public base URL (OIDC_URL): ID token `iss`, discovery, endpoints. */
  oidcUrl: string;
  /** Authorization-code lifetime (OIDC_CODE_TTL_SECONDS, default 60). */
  codeTtlSeconds: number;
  /** ID token lifetime (OIDC_ID_TOKEN_TTL_SECONDS, default 3600). */
  idTokenTtlSeconds: number;
  /** Idle lifetime of the person's sign-in on this host (OIDC_SIGN_IN_TTL_SECONDS, default 86400). */
  signInTtlSeconds: number;
  /** JWKS Cache-Control max-age: never longer than the key prepublication window. */
  jwksMaxAgeSeconds: number;
}

export interface OidcDeps extends IssuanceDeps {
  redis: Redis;
  apps: ApplicationCache;
  clients: ClientStore;
  codes: CodeStore;
  oidcSessions: OidcSessionStore;
  /** The person's sign-in on this host (cookie oidc_session): /authorize reads it, /end-session ends it. */
  signInSessions: SignInSessions;
  /** The /authorize pages: their settings, mailer and parked requests. */
  pages: OidcPageParts;
  logger: Logger;
  metrics?: Metrics;
  oidc: OidcSettings;
}

export interface OpenedOidcDeps extends OidcDeps {
  close(): Promise<void>;
}

export function oidcSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): OidcSettings {
  return {
    oidcUrl: hostUrl('oidc', env),
    codeTtlSeconds: envPositiveInt('OIDC_CODE_TTL_SECONDS', 60, env),
    idTokenTtlSeconds: envPositiveInt('OIDC_ID_TOKEN_TTL_SECONDS', 3600, env),
    signInTtlSeconds: envPositiveInt('OIDC_SIGN_IN_TTL_SECONDS', 86_400, env),
    jwksMaxAgeSeconds: jwksMaxAgeSeconds(env),
  };
}

export function openOidcDeps(): OpenedOidcDeps {
  const core = openHostCore('oidc');
  const settings = oidcSettingsFromEnv();
  const pages = openOidcPageParts(core.redis, core.logger);
  const deps: OidcDeps = {
    ...core.issuance,
    redis: core.redis,
    apps: core.apps,
    clients: createClientStore(core.db),
    codes: createCodeStore(core.db),
    oidcSessions: createOidcSessionStore(core.db),
    signInSessions: createSignInSessions(core.redis, { ttlSeconds: settings.signInTtlSeconds }),
    pages,
    logger: core.logger,
    metrics: core.metrics,
    oidc: settings,
  };
  return {
    ...deps,
    async close() {
      pages.mailer.close();
      await core.close();
    },
  };
}
