// Prometheus metrics per process; served on a separate port so they never reach the public interface.
import http from 'node:http';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { buildVersion } from './version';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  counter(name: string, help: string, labels?: string[]): Counter<string>;
}

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const counters = new Map<string, Counter<string>>();
  return {
    registry,
    httpDuration,
    counter(name, help, labels = []) {
      let c = counters.get(name);
      if (!c) {
        c = new Counter({ name, help, labelNames: labels, registers: [registry] });
        counters.set(name, c);
      }
      return c;
    },
  };
}

/**
 * The metrics hook of every endpoint on both stacks (the fast dispatcher and Express): started when a request
 * arrives, told its method, declared path and status when it is answered; one histogram observation.
 */
export function observeRequest(
  metrics: Metrics | undefined,
): (method: string, route: string, status: number) => void {
  if (!metrics) return () => {};
  const end = metrics.httpDuration.startTimer();
  return (method, route, status) => end({ method, route, status: String(status) });
}

/**
 * Serves GET /metrics (and GET /healthz with the build's version) on METRICS_PORT when it is set (0 picks a free port), on METRICS_BIND_HOST (loopback unless
 * configured otherwise: Kubernetes binds every interface so Prometheus can scrape the pod).
 */
export function serveMetrics(metrics: Metrics, port: number, host = '127.0.0.1'): http.Server {
  const server = http.createServer(async (req, res) => {
    // The worker has no other port: its /healthz (which build runs) is here, beside the metrics.
    if (req.url === '/healthz') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ status: 'ok', version: buildVersion() }));
      return;
    }
    if (req.url !== '/metrics') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
  server.listen(port, host);
  return server;
}

/**
 * Business metrics beside the route histograms. Their names are what deploy/observability's alert rules and
 * dashboard query (a test checks every expression against these), so they change only together with those.
 */
export const BUSINESS_METRICS = {
  tokensIssued: 'tokens_issued_total',
  refreshOutcomes: 'refresh_outcomes_total',
  devicePolls: 'device_polls_total',
  oidcAuthorize: 'oidc_authorize_total',
  credentialAttempts: 'credential_attempts_total',
  redisFailures: 'redis_failures_total',
} as const;

/** The answers a device poll can get (RFC 8628 section 3.5), plus `approved` (tokens issued) and `invalid`. */
export type DevicePollAnswer =
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'approved'
  | 'invalid';

/** One token pair minted: `method` is the session's authentication method, or `refresh` for a rotation. */
export function countTokensIssued(metrics: Metrics | undefined, method: string): void {
  metrics
    ?.counter(
      BUSINESS_METRICS.tokensIssued,
      'Token pairs issued, by authentication method (refresh: rotations)',
      ['method'],
    )
    .inc({ method });
}

/** One /refresh answered: `rotated`, `retried` (the allowance re-answered a retry) or the refusal's reason. */
export function countRefreshOutcome(metrics: Metrics | undefined, outcome: string): void {
  metrics
    ?.counter(
      BUSINESS_METRICS.refreshOutcomes,
      'Refresh requests by outcome (rotated, retried, or the reason)',
      ['outcome'],
    )
    .inc({ outcome });
}

/** One device-token poll, by the answer it got. */
export function countDevicePoll(metrics: Metrics | undefined, answer: DevicePollAnswer): void {
  metrics?.counter(BUSINESS_METRICS.devicePolls, 'Device-token polls by answer', ['answer']).inc({ answer });
}

/**
 * One OIDC /authorize outcome: `error_page` (client or redirect URI not trusted: a page, no redirect),
 * `interaction` (the browser was sent to the sign-in pages), `issued` (the client got its code or tokens), or the
 * OIDC Core 3.1.2.6 error code the client got (`invalid_request`, `login_required`, `access_denied`, ...). A request
 * that goes through the pages counts `interaction`, then `issued` or its error when it is answered.
 */
export function countAuthorizeOutcome(metrics: Metrics | undefined, outcome: string): void {
  metrics
    ?.counter(
      BUSINESS_METRICS.oidcAuthorize,
      'OIDC /authorize outcomes (issued, interaction, error_page, or the error code)',
      ['outcome'],
    )
    .inc({ outcome });
}

/**
 * The guessable credentials whose attempts are counted fleet-wide (per-address limits cannot see a guesser spread
 * over many addresses): the device approval page's typed user code, native's access key and public-key assertion,
 * and the sign-in pages' emailed code.
 */
export const CREDENTIAL_KINDS = ['device_user_code', 'access_key', 'public_key', 'email_code'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * How an attempt ended: `accepted` (the credential proved itself), `rejected` (wrong, unknown, malformed, expired
 * or replayed: the attempt was refused as a credential) or `limited` (a rate limit refused it before any check).
 */
export const CREDENTIAL_OUTCOMES = ['accepted', 'rejected', 'limited'] as const;
export type CredentialOutcome = (typeof CREDENTIAL_OUTCOMES)[number];

/**
 * One credential attempt decided, counted where it is decided. Labels are the two fixed sets only: never the code,
 * secret, key id, address or account tried (deploy/observability's alerts read the fleet-wide rates).
 */
export function countCredentialAttempt(
  metrics: Metrics | undefined,
  kind: CredentialKind,
  outcome: CredentialOutcome,
): void {
  metrics
    ?.counter(
      BUSINESS_METRICS.credentialAttempts,
      'Credential attempts (user codes, access keys, public-key assertions, email codes) by kind and outcome',
      ['kind', 'outcome'],
    )
    .inc({ kind, outcome });
}

/**
 * The Redis calls whose failure a request survives (a best-effort mark, a pub/sub notice, a fallback read): each is
 * counted under its operation before it is tolerated, so an outage that degrades nothing visible is still seen.
 */
export const TOLERATED_REDIS_OPERATIONS = [
  /** The session change notice every replica's session cache drops on (issuance session-events). */
  'session_change_publish',
  /** Remembering a rotation whose answer never reached the client (issuance unanswered-rotations). */
  'unanswered_rotation_mark',
  /** Asking whether a rotation went unanswered (false when Redis cannot say). */
  'unanswered_rotation_read',
  /** Releasing a platform ticket's single-use claim after a failed exchange (native). */
  'ticket_replay_release',
  /** The final mark of a device authorization, which PostgreSQL answers without (device, OIDC device grant). */
  'device_poll_mark_final',
  /** Mailing an emailed code: its rate limits and the flow's pending code (a notice on the page instead). */
  'email_code_send',
] as const;
export type ToleratedRedisOperation = (typeof TOLERATED_REDIS_OPERATIONS)[number];

/** One Redis failure a request path tolerated, by the operation that failed. */
export function countRedisFailure(metrics: Metrics | undefined, operation: ToleratedRedisOperation): void {
  metrics
    ?.counter(BUSINESS_METRICS.redisFailures, 'Redis failures a request path tolerated, by operation', [
      'operation',
    ])
    .inc({ operation });
}
