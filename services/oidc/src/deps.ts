// Everything the OIDC host needs, opened once per process from its parsed configuration: the issuance core
// (application access tokens), the key ring (the platform OIDC key set beside the application keys), the client
// cache, the host's own stores bound once into `ports` (the domain's ports, domain/ports.ts) and its settings.
import { authorizeKeyPrefix, createDeviceGrantStores, unknownPollsKeyPrefix } from '@svc/device-grant';
import { createDpopReplay, type HostParts, openHostCore } from '@svc/host';
import { createUserinfoReadsStore } from '@svc/issuance/stores';
import { ensureActiveKey, publishKeyChange } from '@svc/keyring';
import { type Clock, createRateLimiter } from '@svc/platform';
import { createProvisioningPorts } from '@svc/provisioning/stores';
import type { Signin } from '@svc/signin';
import type { OidcConfig } from './config';
import { ensurePlatformKey } from './domain/platform-key';
import type { OidcDomainDeps } from './domain/ports';
import type { OidcKey } from './pages/i18n-oidc';
import { type OidcPageParts, oidcSignin, openOidcPageParts } from './pages-config';
import { createClientStore } from './store/clients';
import { createCodeStore } from './store/codes';
import { createInteractionStore } from './store/interactions';
import { createOidcSessionStore } from './store/oidc-sessions';
import { createPushedRequestStore } from './store/pushed-requests';
import { createSignInSessionStore } from './store/sign-in-sessions';

/**
 * What the domain is handed (the issuance core's parts flat, the host's ports and values), what the host core
 * shares (typed there once), and what only the host itself and its routes use: the database and Redis (the
 * readiness checks of hostAppOptions), the sign-in steps, the pages' settings and mailer.
 */
export interface OidcDeps
  extends OidcDomainDeps,
    Pick<HostParts, 'db' | 'redis' | 'apps' | 'logger' | 'metrics' | 'trustProxy'> {
  /** The /authorize pages: their settings and mailer. */
  pages: OidcPageParts;
  /** The shared sign-in steps bound to this host (its flow cookie, namespace, strings and page statuses). */
  signin: Signin<OidcKey>;
  /** The development mailbox's page (DEV_MAILBOX_URL), linked from `GET /`. */
  devMailboxUrl?: string;
  /** Makes the platform ID-token key set's first key when there is none (domain/platform-key.ts). */
  ensurePlatformKey(): Promise<void>;
}

export type { OidcSettings } from './config';

export interface OpenedOidcDeps extends OidcDeps {
  close(): Promise<void>;
}

/** Opens the core connections from the parsed configuration, then binds the OIDC host's stores over them. */
export function openOidcDeps(config: OidcConfig, clock: Clock): OpenedOidcDeps {
  const core = openHostCore(config, clock);
  const pages = openOidcPageParts(core.logger, config);
  const deps: OidcDeps = {
    ...core.issuance,
    devMailboxUrl: config.devMailboxUrl,
    db: core.db,
    redis: core.redis,
    apps: core.apps,
    ports: {
      ...core.issuance.ports,
      clients: createClientStore(core.db, clock),
      codes: createCodeStore(core.db),
      interactions: createInteractionStore(core.redis, {
        redisPrefix: config.oidc.redisPrefix,
        ttlSeconds: pages.settings.interactionTtlSeconds,
        clock,
      }),
      pushedRequests: createPushedRequestStore(core.redis, core.claims, {
        redisPrefix: config.oidc.redisPrefix,
        clock,
      }),
      oidcSessions: { ...createOidcSessionStore(core.db), ...createUserinfoReadsStore(core.db) },
      signInSessions: createSignInSessionStore(core.redis, core.issuance.ports.accounts, {
        redisPrefix: config.oidc.redisPrefix,
        ttlSeconds: config.oidc.signInTtlSeconds,
        clock,
      }),
      deviceGrant: createDeviceGrantStores(
        core.db,
        core.redis,
        config.oidc.deviceGrant,
        config.redis.commandTimeoutMs,
      ),
      unknownDeviceCodeLimit: createRateLimiter(core.redis, {
        perAddress: true,
        keyPrefix: unknownPollsKeyPrefix(config.oidc.deviceGrant),
        points: config.oidc.deviceGrant.unknownPollsPerAddress,
        durationSeconds: config.oidc.deviceGrant.rateWindowSeconds,
      }),
      deviceAuthorizeLimit: createRateLimiter(core.redis, {
        perAddress: true,
        keyPrefix: authorizeKeyPrefix(config.oidc.deviceGrant),
        points: config.oidc.deviceGrant.authorizePerAddress,
        durationSeconds: config.oidc.deviceGrant.rateWindowSeconds,
      }),
      dpopReplay: createDpopReplay(core.claims),
      // Each registration acts as its initial access token (registrationTokenActor); this binding's actor is
      // never recorded.
      registration: createProvisioningPorts(core.db, {
        actor: { actor: { kind: 'registration_token', id: 'unbound', name: null } },
        clock,
        chainWait: config.auditChainWait,
      }),
      registerLimit: createRateLimiter(core.redis, {
        perAddress: true,
        keyPrefix: `${pages.settings.rateLimitNamespace}:register-ip`,
        points: config.oidc.registrationRatePerMinute,
        durationSeconds: 60,
      }),
      authorizeLimit: createRateLimiter(core.redis, {
        perAddress: true,
        keyPrefix: `${pages.settings.rateLimitNamespace}:authorize-ip`,
        points: pages.settings.authorizeRate.points,
        durationSeconds: pages.settings.authorizeRate.windowSeconds,
      }),
    },
    signin: oidcSignin(
      {
        db: core.db,
        redis: core.redis,
        issuance: core.issuance,
        logger: core.logger,
        clock,
        metrics: core.metrics,
      },
      pages,
      config.oidc,
    ),
    pages,
    ensurePlatformKey: () =>
      ensurePlatformKey(
        {
          ensureActiveKey: (scopeId, at) => ensureActiveKey(core.db, core.issuance.kek, scopeId, at),
          publishKeyChange: (scopeId) => publishKeyChange(core.redis, scopeId),
        },
        { keyRing: core.keyRing, clock },
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
