// Everything the connect host needs, opened from its parsed configuration by openConnectDeps (main) or by tests:
// the core connections, the mailer, and, bound once over them, the domain's ports and the sign-in steps.
import { createClientAuthPorts } from '@svc/client-auth';
import { type HostParts, openHostCore } from '@svc/host';
import { createTermsRevisionCache } from '@svc/issuance';
import { type Clock, createRateLimiter } from '@svc/platform';
import { createMailer, createSignin, type Mailer, type Signin } from '@svc/signin';
import type { ConnectConfig } from './config';
import { RESET_WINDOW_SECONDS, RESETS_PER_ACCOUNT } from './domain/account-page';
import type { ConnectPorts } from './domain/ports';
import { CONNECT_MESSAGES, type ConnectKey } from './pages/i18n-connect';
import { CONNECT_PAGE_STATUSES } from './pages/page-statuses';
import { createAccountChanges, createAccountPageStore } from './store/account-page';
import { createAccountSessionStore } from './store/account-sessions';
import { createErrandStore } from './store/errands';
import { createInquiryStore } from './store/inquiries';

export type ConnectSignin = Signin<ConnectKey>;

export interface ConnectDeps extends HostParts {
  config: ConnectConfig;
  mailer: Mailer;
  /** The one clock of the host (ms since the epoch); tests pass a settable one. */
  clock: Clock;
  /** The stores and records connect's domain works through, bound once (connectBindings). */
  ports: ConnectPorts;
  /** The shared sign-in steps bound to connect (its flow cookie, namespace, strings, account page). */
  signin: ConnectSignin;
  close(): Promise<void>;
}

type Unbound = Omit<ConnectDeps, 'ports' | 'signin' | 'close'>;

/** The domain's ports over the opened connections: every store of the host, built here and only here. */
export function connectPorts(parts: Unbound): ConnectPorts {
  const { db, redis, config, clock } = parts;
  return {
    inquiries: createInquiryStore(db),
    errands: createErrandStore(db),
    accountPage: createAccountPageStore(db),
    accountSessions: createAccountSessionStore(redis, {
      redisPrefix: config.redisPrefix,
      ttlSeconds: config.flowTtlSeconds,
      clock,
    }),
    issuance: parts.issuance.ports,
    // A published revision never changes, so its page reads it once (createTermsRevisionCache).
    termsRevision: createTermsRevisionCache(parts.issuance.ports.agreements),
    clientAuth: createClientAuthPorts(db, parts.claims),
    resetLimit: createRateLimiter(redis, {
      keyPrefix: `${config.rateLimitNamespace}:subject-reset-account`,
      points: RESETS_PER_ACCOUNT,
      durationSeconds: RESET_WINDOW_SECONDS,
      perAddress: false,
    }),
    // Bound to no one: the domain names the person of each change (`as(personActor(accountId, request))`).
    accountChanges: createAccountChanges(db, clock, config.auditChainWait),
  };
}

/**
 * connect's binding of the sign-in steps: its flow cookie, namespace and Redis key prefix, its strings, its account
 * page.
 */
export function connectSignin(parts: Unbound): ConnectSignin {
  return createSignin({
    deps: parts,
    config: { ...parts.config, accountPageUrl: `${parts.config.connectUrl}/account` },
    namespace: 'connect',
    redisPrefix: parts.config.redisPrefix,
    receiptChannel: 'CONNECT_BROWSER',
    messages: CONNECT_MESSAGES,
    pageStatuses: CONNECT_PAGE_STATUSES,
    // A page view without a flow writes one (~260 bytes for FLOW_TTL_SECONDS): without a count, a loop of
    // cookieless views would write without bound. The account page's new sessions count here too.
    newFlowRate: parts.config.newFlowRate,
  });
}

/** The ports and the sign-in steps over the opened connections (main and tests alike). */
export function connectBindings(parts: Unbound): Pick<ConnectDeps, 'ports' | 'signin'> {
  return { ports: connectPorts(parts), signin: connectSignin(parts) };
}

/** Opens the core connections, then the mailer, then binds the ports. */
export function openConnectDeps(config: ConnectConfig, clock: Clock): ConnectDeps {
  const core = openHostCore(config, clock);
  const mailer = createMailer(config.smtp, config.mailFrom, core.logger, config.devMailboxUrl);
  const parts = { ...core, config, mailer, clock };
  return {
    ...parts,
    ...connectBindings(parts),
    async close() {
      mailer.close();
      await core.close();
    },
  };
}
