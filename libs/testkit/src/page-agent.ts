// A minimal browser over fetch for the sign-in pages of connect, device and oidc: one cookie jar, manual redirects,
// the CSRF token read from the last page. An attacker's tools too: `cookie` reads what the host set, `plant` sets a
// cookie the host never issued to it.

export function makeAgent(base: string) {
  const jar = new Map<string, string>();
  let csrf = '';
  return {
    get csrf() {
      return csrf;
    },
    set csrf(value: string) {
      csrf = value;
    },
    cookie(name: string): string | undefined {
      return jar.get(name);
    },
    plant(name: string, value: string): void {
      jar.set(name, value);
    },
    async request(path: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
      const url = path.startsWith('http') ? path : `${base}${path}`;
      const res = await fetch(url, { ...init, headers, redirect: 'manual' });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const [k, v] = pair!.split('=');
        jar.set(k!, v!);
      }
      const text = await res.text();
      const m = /name="csrf-token" content="([^"]+)"/.exec(text);
      if (m?.[1]) csrf = m[1];
      return { res, text };
    },
    form(path: string, fields: Record<string, string>, extra: Record<string, string> = {}) {
      return this.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...extra },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });
    },
    /** POSTs JSON as the page script does (X-CSRF-Token header); the body is sent as given when a string. */
    json(path: string, body: unknown) {
      return this.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
  };
}
export type Agent = ReturnType<typeof makeAgent>;
