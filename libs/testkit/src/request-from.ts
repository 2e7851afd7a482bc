// A request from a chosen client address, for the tests of the per-address limits: a fresh connection from a
// loopback address of this machine (127.0.0.2 is another client address for a host listening on 127.0.0.1).
import http from 'node:http';

export interface AddressedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One request to the host at `base` (its URL: connected on 127.0.0.1 at its port, its host in the Host header)
 * from `from` (default 127.0.0.1), in English unless `headers` say otherwise.
 */
export function requestFrom(
  base: string,
  opts: {
    method?: 'GET' | 'POST';
    path: string;
    from?: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<AddressedAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: url.port,
        localAddress: opts.from ?? '127.0.0.1',
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: { host: url.host, 'accept-language': 'en-US', ...opts.headers },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * The sign-in pages' 429 page (English) of a per-address limit whose window is `windowSeconds`: no redirect and no
 * cookie, a Retry-After within the window that the page names, HTML, no-store.
 */
export function expectLimitedPage(a: AddressedAnswer, windowSeconds = 60): void {
  expect(a.status).toBe(429);
  expect(a.headers.location).toBeUndefined();
  expect(a.headers['set-cookie']).toBeUndefined();
  const wait = Number(a.headers['retry-after']);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(windowSeconds);
  expect(a.headers['content-type']).toMatch(/^text\/html/);
  expect(a.headers['cache-control']).toBe('no-store');
  expect(a.body).toContain(`Too many attempts. Try again in ${wait} second${wait === 1 ? '' : 's'}.`);
}
