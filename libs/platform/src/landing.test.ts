// GET / and /favicon.ico of a host: the signpost page names the host, what it serves, its docs and (when given) the
// development mailbox, escapes what it shows, and keeps the security headers with a CSP that allows nothing inline but
// the page's own style element, by its hash.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveEndpoints } from './endpoints';
import { landingEndpoints } from './landing';
import { createLogger } from './logger';

async function serve(mailboxUrl?: string): Promise<{ url: string; close: () => void }> {
  const app = serveEndpoints(
    { name: 't', logger: createLogger('t', { level: 'silent' }) },
    {
      endpoints: landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'device', mailboxUrl),
    },
  );
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

test('GET / names the host, what it serves, its docs and the mailbox, under a strict CSP', async () => {
  const host = await serve('http://localhost:4199');
  try {
    const res = await fetch(`${host.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('the device host');
    expect(html).toContain('The device authorization flow');
    expect(html).toContain('docs/device.md');
    expect(html).toContain('href="/device"');
    expect(html).toContain('href="/openapi.json"');
    expect(html).toContain('href="http://localhost:4199/"');
    expect(html).not.toMatch(/<script|style=/);
    // The one style element is what the CSP's hash allows, byte for byte (an escaped quote would break it).
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).not.toContain('unsafe-inline');
    const styles = [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    expect(csp).toContain(`style-src 'sha256-${hash}'`);

    const icon = await fetch(`${host.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
  } finally {
    host.close();
  }
});

test('without a mailbox (production) the page does not mention one', async () => {
  const host = await serve();
  try {
    expect(await (await fetch(`${host.url}/`)).text()).not.toContain('mailbox');
  } finally {
    host.close();
  }
});
