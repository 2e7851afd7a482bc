// Reading a host's counters as Prometheus does: its registry served on /metrics (serveMetrics on a free port) and
// one sample read from the exposition text, so a test asserts what a scrape (and an alert rule) would see; and the
// series an alert rule of deploy/observability reads, so a test scrapes exactly that one.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Metrics, serveMetrics } from '@svc/platform';

/** The labels of one exposition line `name{a="x",b="y"} value`, and its value. */
function samplesOf(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!;
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

/** Scrapes the host's GET /metrics once; the value of `name` with every label of `labels` (0 when absent). */
export async function scrapeCounter(
  metrics: Metrics,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const server = serveMetrics(metrics, 0);
  try {
    await new Promise<void>((r) => (server.listening ? r() : server.once('listening', () => r())));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`);
    const text = await res.text();
    const sample = samplesOf(text, name).find((s) =>
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    return sample?.value ?? 0;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(() => r(undefined)));
  }
}

const ALERTS = path.resolve(__dirname, '..', '..', '..', 'deploy', 'observability', 'alerts.yaml');

/**
 * The series the alert rule `alert` of deploy/observability/alerts.yaml reads: the metric and the `label="value"`
 * matchers of its expression's one selector (a rule with another matcher, or none, is not supported here).
 */
export function alertSeries(alert: string): { name: string; labels: Record<string, string> } {
  const text = readFileSync(ALERTS, 'utf8');
  const at = text.indexOf(`- alert: ${alert}\n`);
  const expr = at < 0 ? undefined : /\n\s+expr:\s*(\S.*)/.exec(text.slice(at))?.[1];
  const selector = expr && /([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/.exec(expr);
  if (!selector) throw new Error(`alerts.yaml has no one-line selector for ${alert}`);
  const labels: Record<string, string> = {};
  for (const matcher of selector[2]!.split(',')) {
    const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"\s*$/.exec(matcher);
    if (!m) throw new Error(`${alert}: only label="value" matchers are supported, not ${matcher}`);
    labels[m[1]!] = m[2]!;
  }
  return { name: selector[1]!, labels };
}
