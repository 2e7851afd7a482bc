// Everything the OIDC host needs, opened once per process from its parsed configuration: the issuance core
// (application access tokens), the key ring (the platform OIDC key set beside the application keys), the client
// cache and the host's own settings.
import { createDeviceGrantStores, type DeviceGrantStores } from '@svc/device-grant';
import { type HostParts, openHostCore } from '@svc/host';
import type { IssuanceDeps } from '@svc/issuance';
import type { Clock } from '@svc/platform';
import type { OidcConfig, OidcSettings } from './config';
import { type OidcPageParts, openOidcPageParts } from './pages-config';
import { type ClientStore, createClientStore } from './store/clients';
import { type CodeStore, createCodeStore } from './store/codes';
import { createOidcSessionStore, type OidcSessionStore } from './store/oidc-sessions';
import { createSignInSessions, type SignInSessions } from './store/sign-in-sessions';

/** The issuance core's parts flat, what the host core shares (typed there once), and the OIDC host's own stores. */
export interface OidcDeps
  extends IssuanceDeps,
    Pick<HostParts, 'redis' | 'apps' | 'logger' | 'metrics' | 'trustProxy'> {
  clients: ClientStore;
  codes: CodeStore;
  oidcSessions: OidcSessionStore;
  /** The person's sign-in on this host (cookie oidc_session): /authorize reads it, /end-session ends it. */
  signInSessions: SignInSessions;
  /** The /authorize pages: their settings, mailer and parked requests. */
  pages: OidcPageParts;
  oidc: OidcSettings;
  /** Device authorizations and their polling state, shared with the device host (libs/device-grant). */
  deviceGrant: DeviceGrantStores;
  /** The development mailbox's page (DEV_MAILBOX_URL), linked from `GET /`. */
  devMailboxUrl?: string;
}

export type { OidcSettings } from './config';

export interface OpenedOidcDeps extends OidcDeps {
  close(): Promise<void>;
}

/** Opens the core connections from the parsed configuration, then the OIDC host's stores over them. */
export function openOidcDeps(config: OidcConfig, clock: Clock): OpenedOidcDeps {
  const core = openHostCore(config, clock);
  const pages = openOidcPageParts(core.redis, core.logger, config, clock);
  const deps: OidcDeps = {
    ...core.issuance,
    devMailboxUrl: config.devMailboxUrl,
    redis: core.redis,
    apps: core.apps,
    clients: createClientStore(core.db, clock),
    codes: createCodeStore(core.db),
    oidcSessions: createOidcSessionStore(core.db),
    signInSessions: createSignInSessions(core.redis, core.db, {
      redisPrefix: config.oidc.redisPrefix,
      ttlSeconds: config.oidc.signInTtlSeconds,
      clock,
    }),
    pages,
    deviceGrant: createDeviceGrantStores(
      core.db,
      core.redis,
      config.oidc.deviceGrant,
      config.redis.commandTimeoutMs,
    ),
    logger: core.logger,
    metrics: core.metrics,
    oidc: config.oidc,
    trustProxy: config.trustProxy,
  };
  return {
    ...deps,
    async close() {
      pages.mailer.close();
      await core.close();
    },
  };
}
