// Reading a host's counters as Prometheus does: its registry served on /metrics (serveMetrics on a free port) and
// one sample read from the exposition text, so a test asserts what a scrape (and an alert rule) would see.
import type { AddressInfo } from 'node:net';
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
