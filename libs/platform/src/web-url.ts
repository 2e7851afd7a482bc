// The URL rules shared by browser-facing settings and inputs (callback URLs, the device verification base, OIDC
// client URIs, cookie security): loopback hosts, HTTPS-or-loopback, and a concrete absolute URL.

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** localhost or a loopback address (as URL.hostname spells it): the only hosts plain HTTP is accepted for. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase());
}

/** HTTPS, or plain HTTP to a loopback host: the only URLs a browser or client is sent to. */
export function isHttpsOrLoopback(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** Why a text is not a concrete absolute URL (absoluteUrlOf). */
export type AbsoluteUrlProblem = 'control' | 'not_absolute' | 'credentials';

/**
 * A text as an absolute URL without whitespace, control characters (C0, DEL, C1) or credentials, or what is wrong
 * with it. The callers add their own rules (scheme: isHttpsOrLoopback; query, host, ...).
 */
export function absoluteUrlOf(raw: string): URL | AbsoluteUrlProblem {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) return 'control';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not_absolute';
  }
  return url.username || url.password ? 'credentials' : url;
}
