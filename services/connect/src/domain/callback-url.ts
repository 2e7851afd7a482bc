// The callbackUrl rules of /establish, and the final URL the browser is sent to after realization.
import { absoluteUrlOf, isHttpsOrLoopback, isLoopbackHost } from '@svc/platform';

/** Query parameter names that carry the inquiry keys back to the application (CALLBACK return). */
export const CALLBACK_PARAMS = { exposureKey: 'exposureKey', confirmationKey: 'confirmationKey' } as const;

export const MAX_CALLBACK_BYTES = 2048;

export type CallbackProblem = 'too_long' | 'not_absolute' | 'scheme' | 'template' | 'credentials' | 'host';

/**
 * Checks a callbackUrl against the spec: at most 2048 UTF-8 bytes, absolute and concrete (no key templates,
 * no credentials), HTTPS except loopback HTTP, host among the application's callback domains.
 * Returns the problem, or undefined when the URL is acceptable.
 */
export function checkCallbackUrl(raw: string, callbackDomains: string[]): CallbackProblem | undefined {
  if (Buffer.byteLength(raw, 'utf8') > MAX_CALLBACK_BYTES) return 'too_long';
  // Templates such as {exposureKey} or their percent-encoded forms: the URL must be concrete.
  if (/[{}]|%7b|%7d/i.test(raw)) return 'template';
  const url = absoluteUrlOf(raw);
  if (typeof url === 'string') return url === 'credentials' ? 'credentials' : 'not_absolute';
  if (!isHttpsOrLoopback(url)) return 'scheme';
  return callbackDomains.some((d) => domainAdmits(d, url)) ? undefined : 'host';
}

/** Splits a registered callback domain into host name and optional port (`app.example`, `[::1]:8443`). */
function parseDomain(domain: string): { hostname: string; port?: string } {
  const d = domain.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(d);
  return m ? { hostname: m[1] ?? d, port: m[2] } : { hostname: d };
}

/**
 * Whether a registered callback domain admits a URL. The host names must be equal. A domain that names a port
 * admits only that port. A domain without one admits any port on a loopback host (RFC 8252 section 7.3: native
 * apps listen on an ephemeral port) and elsewhere only the scheme's default port (which URL leaves empty).
 */
export function domainAdmits(domain: string, url: URL): boolean {
  const registered = parseDomain(domain);
  if (registered.hostname !== url.hostname.toLowerCase()) return false;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (registered.port !== undefined) return Number(registered.port) === Number(port);
  return isLoopbackHost(url.hostname) || url.port === '';
}

/** Appends the two key parameters, replacing any caller-supplied or duplicate values, keeping the rest. */
export function buildCallbackRedirect(
  callbackUrl: string,
  exposureKey: string,
  confirmationKey: string,
): string {
  const url = new URL(callbackUrl);
  url.searchParams.delete(CALLBACK_PARAMS.exposureKey);
  url.searchParams.delete(CALLBACK_PARAMS.confirmationKey);
  url.searchParams.append(CALLBACK_PARAMS.exposureKey, exposureKey);
  url.searchParams.append(CALLBACK_PARAMS.confirmationKey, confirmationKey);
  return url.toString();
}
