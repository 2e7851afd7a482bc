// deploy/observability: the alert rules parse as a Prometheus rule file and the dashboard as JSON, and every metric
// an expression reads is one the code registers (a renamed metric would silently blind an alert otherwise).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CREDENTIAL_KINDS,
  CREDENTIAL_OUTCOMES,
  countAuthorizeOutcome,
  countCredentialAttempt,
  countDevicePoll,
  countRedisFailure,
  countRefreshOutcome,
  countTokensIssued,
  createMetrics,
  systemClock,
} from '@svc/platform';
import { parse } from 'yaml';
import { registerWorkerGauges, workerMetrics } from '../services/worker/src/metrics';

const dir = path.resolve(__dirname, '..', 'deploy', 'observability');

/** Every series name the fleet's processes can expose: hosts' and the worker's registries, suffixes included. */
function exportedNames(): Set<string> {
  const host = createMetrics('session');
  countTokensIssued(host, 'ACCESS_KEY_DIRECT');
  countRefreshOutcome(host, 'rotated');
  countDevicePoll(host, 'authorization_pending');
  countAuthorizeOutcome(host, 'issued');
  countCredentialAttempt(host, 'device_user_code', 'rejected');
  countRedisFailure(host, 'session_change_publish');
  const worker = workerMetrics(createMetrics('worker'));
  // Registered only: the gauges read their sources when scraped, which this test never does.
  registerWorkerGauges(worker.base, {
    queue: { getJobCounts: async () => ({}) },
    db: undefined as never,
    clock: systemClock,
    outbox: { pending: async () => ({ count: 0, oldest: undefined }) },
  });
  const names = new Set<string>();
  for (const registry of [host.registry, worker.base.registry]) {
    for (const metric of registry.getMetricsAsArray()) {
      const { name, type } = metric as unknown as { name: string; type: string };
      names.add(name);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
    }
  }
  return names;
}

const PROMQL_WORDS = new Set([
  'sum',
  'rate',
  'increase',
  'irate',
  'max',
  'min',
  'avg',
  'count',
  'by',
  'without',
  'and',
  'or',
  'unless',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'histogram_quantile',
  'clamp_min',
  'clamp_max',
  'abs',
  'time',
  'offset',
  'e',
  'inf',
  'nan',
]);

/** The metric names an expression reads: identifiers outside label matchers, groupings, ranges and strings. */
function metricsOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  return [...stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .map((m) => m[0])
    .filter((w) => !PROMQL_WORDS.has(w.toLowerCase()) && !/^\d/.test(w));
}

/**
 * The label values an expression's `credential_attempts_total{...}` selectors match (an `=~` alternation split into
 * its values), each with its label name.
 */
function credentialMatchers(expr: string): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  for (const selector of expr.matchAll(/credential_attempts_total\{([^}]*)\}/g)) {
    for (const m of selector[1]!.matchAll(/(\w+)\s*=~?\s*"([^"]*)"/g))
      for (const value of m[2]!.split('|')) out.push({ label: m[1]!, value });
  }
  return out;
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = (): Rule[] => {
  const file = parse(readFileSync(path.join(dir, 'alerts.yaml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  };
  return file.groups.flatMap((g) => g.rules);
};

describe('deploy/observability', () => {
  const names = exportedNames();

  it('knows the metrics the rules need', () => {
    for (const name of [
      'http_request_duration_seconds_count',
      'refresh_outcomes_total',
      'tokens_issued_total',
      'device_polls_total',
      'credential_attempts_total',
      'signing_key_age_seconds',
      'jwks_keys',
      'worker_queue_jobs',
      'worker_jobs_total',
    ])
      expect(names).toContain(name);
  });

  it('has the alerts issue 16 asks for, each well formed, reading only exported metrics', () => {
    const all = rules();
    expect(all.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'RefreshServerErrors',
        'SigningKeyRotationOverdue',
        'JwksNearKeyLimit',
        'WorkerQueueBacklog',
        'DeviceUserCodeGuessing',
        'DeviceUserCodeRejectedShare',
        'DirectIssueProofsRejected',
        'EmailCodeGuessing',
      ]),
    );
    for (const rule of all) {
      expect(typeof rule.alert).toBe('string');
      expect(rule.expr.trim().length).toBeGreaterThan(0);
      expect(rule.labels?.severity).toMatch(/^(page|ticket)$/);
      expect(rule.annotations?.summary).toBeTruthy();
      if (rule.for) expect(rule.for).toMatch(/^\d+[smh]$/);
      const read = metricsOf(rule.expr);
      expect(read.length).toBeGreaterThan(0);
      for (const metric of read)
        expect({ alert: rule.alert, metric, known: names.has(metric) }).toMatchObject({ known: true });
    }
  });

  it('has a dashboard whose every panel query reads only exported metrics', () => {
    const dashboard = JSON.parse(readFileSync(path.join(dir, 'dashboard.json'), 'utf8')) as {
      title: string;
      panels: { id: number; title: string; targets: { expr: string }[] }[];
    };
    expect(dashboard.title).toBeTruthy();
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ panel: p.title, expr: t.expr })));
    expect(exprs.length).toBeGreaterThanOrEqual(10);
    for (const { panel, expr } of exprs) {
      const read = metricsOf(expr);
      expect(read.length).toBeGreaterThan(0);
      for (const metric of read)
        expect({ panel, metric, known: names.has(metric) }).toMatchObject({ known: true });
    }
  });

  it('matches credential_attempts_total only on the kinds and outcomes the code counts', () => {
    const dashboard = JSON.parse(readFileSync(path.join(dir, 'dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = [
      ...rules().map((r) => r.expr),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    const known: Record<string, readonly string[]> = { kind: CREDENTIAL_KINDS, outcome: CREDENTIAL_OUTCOMES };
    const matched = exprs.flatMap((expr) => credentialMatchers(expr));
    expect(matched.length).toBeGreaterThan(0);
    for (const m of matched)
      expect({ ...m, known: known[m.label]?.includes(m.value) }).toMatchObject({ known: true });
    // A misspelt value would be a silently blind alert: it is caught.
    expect(credentialMatchers('sum(rate(credential_attempts_total{kind="device_usercode"}[5m]))')).toEqual([
      { label: 'kind', value: 'device_usercode' },
    ]);
    expect(CREDENTIAL_KINDS).not.toContain('device_usercode');
  });

  it('catches a metric the code does not export', () => {
    expect(metricsOf('sum(rate(refresh_outcome_total{outcome="x"}[5m])) by (outcome)')).toEqual([
      'refresh_outcome_total',
    ]);
    expect(names.has('refresh_outcome_total')).toBe(false);
  });
});
