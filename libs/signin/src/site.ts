// What a host hands the shared sign-in steps: its dependencies, its WebAuthn and cookie configuration, its
// namespace (language cookie) and Redis key prefix (flow records), the channel its terms receipts name, and its own
// page strings.
import type { Db } from '@svc/db';
import type { IssuanceDeps } from '@svc/issuance';
import { type Clock, createRateLimiter, type Logger, type Metrics, type RateLimiter } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { CodeLimits } from './domain/email-codes';
import type { Mailer } from './domain/mailer';
import type { SigninPorts } from './domain/ports';
import type { Messages } from './pages/i18n';
import { mergePageStatuses } from './pages/page-statuses';
import { createAccountStore } from './store/accounts';
import { createFlowStore } from './store/flows';
import { createSendGap } from './store/send-gap';

export interface SigninConfig {
  /** WebAuthn relying party id: one for the whole fleet (WEBAUTHN_RP_ID), so every host sees the same passkeys. */
  rpId: string;
  /** Origin browsers report in WebAuthn client data and in Origin headers: this host's own. */
  origin: string;
  rpName: string;
  /** Lifetime of an emailed sign-up code. */
  emailCodeTtlSeconds: number;
  /** Idle lifetime of a browser flow. */
  flowTtlSeconds: number;
  /** Cookies carry Secure unless the host is served over loopback HTTP. */
  secureCookies: boolean;
  /** The flow cookie: `__Host-<namespace>_flow` over HTTPS, `<namespace>_flow` on loopback HTTP. */
  flowCookieName: string;
  /** Redis key namespace of the rate limits, so separate deployments do not share counters. */
  rateLimitNamespace: string;
  rateLimits: {
    /** Codes sent per client address and per recipient in 10 minutes. */
    codeSendPerIp: number;
    codeSendPerRecipient: number;
    /** Code guesses per client address in 10 minutes (each code also dies after 5 wrong guesses). */
    codeVerifyPerIp: number;
    /** Passkey ceremonies per client address in 5 minutes. */
    signInPerIp: number;
    /** The shortest wait between two codes to one address (EMAIL_CODE_RESEND_SECONDS); default 30. */
    codeResendSeconds?: number;
  };
  /** The account page where a person removes a passkey (connect's /account), linked from the passkey notice. */
  accountPageUrl: string;
}

export interface SigninDeps {
  db: Db;
  redis: Redis;
  issuance: IssuanceDeps;
  mailer: Mailer;
  logger: Logger;
  /** The host's clock (tests pass a settable one). */
  clock: Clock;
  /** The host's metrics: typed email codes are counted in credential_attempts_total (kind email_code). */
  metrics?: Metrics;
}

export interface SigninOptions<K extends string = never> {
  deps: SigninDeps;
  config: SigninConfig;
  /** The host's name in its browser's cookies: the language cookie `<namespace>_lang`. */
  namespace: string;
  /**
   * The Redis key prefix of the host's own state (its configured `<HOST>_REDIS_PREFIX`): flow records live under
   * `<redisPrefix>:flow`. Replicas of one deployment share it; separate deployments (or tests) on one Redis do not.
   */
  redisPrefix: string;
  /** Recorded on basic-terms receipts accepted on these pages, e.g. CONNECT_BROWSER. */
  receiptChannel: string;
  /** The host's own page strings (its final step and its errors), in both locales. */
  messages?: Messages<K>;
  /** The statuses of the host's own page errors (a table beside its strings), merged with the shared ones. */
  pageStatuses?: Readonly<Partial<Record<K, number>>>;
  /**
   * Flows the pages may start per client address in a window (each view by a browser without a flow this host
   * issued writes one to Redis for FLOW_TTL_SECONDS): over it, TooManyAttempts and nothing written. Unset: none.
   */
  newFlowRate?: { points: number; windowSeconds: number };
}

/** The resolved options every route of the library works with. */
export interface Site<K extends string = never> extends SigninOptions<K> {
  /** The stores the steps work through, bound once over the host's connections. */
  ports: SigninPorts;
  codeLimits: CodeLimits;
  /** Passkey ceremonies per client address (sign-in pages and the account page share it). */
  signInLimit: RateLimiter;
  /** The count of `newFlowRate` (`<rateLimitNamespace>:new-flow-ip`), when the host set one. */
  newFlowLimit?: RateLimiter;
  langCookie: string;
  /** The status of every page error's key: the shared table and the host's own (pages/page-statuses.ts). */
  statuses: Readonly<Record<string, number>>;
}

/** EMAIL_CODE_RESEND_SECONDS's default. */
export const DEFAULT_RESEND_SECONDS = 30;

export function resolveSite<K extends string>(o: SigninOptions<K>): Site<K> {
  const { rateLimits: rl, rateLimitNamespace: ns } = o.config;
  const limiter = (name: string, points: number, durationSeconds: number, perAddress = true) =>
    createRateLimiter(o.deps.redis, { keyPrefix: `${ns}:${name}`, points, durationSeconds, perAddress });
  return {
    ...o,
    ports: {
      flows: createFlowStore(o.deps.redis, {
        namespace: `${o.redisPrefix}:flow`,
        ttlSeconds: o.config.flowTtlSeconds,
        clock: o.deps.clock,
      }),
      accounts: createAccountStore(o.deps.db),
      issuance: o.deps.issuance.ports,
    },
    codeLimits: {
      sendPerIp: limiter('code-send-ip', rl.codeSendPerIp, 600),
      sendPerRecipient: limiter('code-send-to', rl.codeSendPerRecipient, 600, false),
      resendGap: createSendGap(o.deps.redis, {
        keyPrefix: `${ns}:code-send-gap`,
        seconds: rl.codeResendSeconds ?? DEFAULT_RESEND_SECONDS,
      }),
      verify: limiter('code-verify-ip', rl.codeVerifyPerIp, 600),
    },
    signInLimit: limiter('sign-in-ip', rl.signInPerIp, 300),
    newFlowLimit: o.newFlowRate && limiter('new-flow-ip', o.newFlowRate.points, o.newFlowRate.windowSeconds),
    // Over HTTPS (the flow cookie is `__Host-` prefixed then) every cookie the pages set carries the prefix too.
    statuses: mergePageStatuses(o.pageStatuses),
    langCookie: `${o.config.flowCookieName.startsWith('__Host-') ? '__Host-' : ''}${o.namespace}_lang`,
  };
}
