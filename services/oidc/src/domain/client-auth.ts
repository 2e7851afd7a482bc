// Token-endpoint client authentication (RFC 6749 2.3, OpenID Connect Core 9): client_secret_basic,
// client_secret_post, or none (public clients, which must use PKCE). Exactly one method per request, and it must be
// the one the client registered. Secrets are compared as SHA-256 digests in constant time; an unknown client costs
// the same hash and comparison as a known one, so timing tells nothing about which client ids exist.
import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidClient, InvalidRequest } from './oauth-errors';
import type { ClientAuthMethod, OidcClient, OidcDomainDeps } from './ports';

export interface ClientCredentials {
  /** The Authorization header, if any. */
  authorization?: string;
  /** client_id and client_secret from the form body, if any. */
  clientId?: string;
  clientSecret?: string;
}

const DUMMY_HASH = Buffer.alloc(32);

interface Presented {
  method: ClientAuthMethod;
  clientId: string;
  secret?: string;
}

/** RFC 6749 2.3.1: the Basic credentials are each form-urlencoded before base64. */
function decodeBasic(header: string): { clientId: string; secret: string } {
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!m) throw new InvalidClient('malformed Basic credentials', true);
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClient('malformed Basic credentials', true);
  try {
    const formDecode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new InvalidClient('malformed Basic credentials', true);
  }
}

function presented(c: ClientCredentials): Presented {
  const basic = c.authorization !== undefined && /^basic /i.test(c.authorization.trim());
  if (c.authorization !== undefined && !basic) {
    throw new InvalidClient('the token endpoint accepts HTTP Basic client authentication only');
  }
  if (basic) {
    if (c.clientSecret !== undefined) throw new InvalidRequest('more than one client authentication method');
    const { clientId, secret } = decodeBasic(c.authorization!);
    if (c.clientId !== undefined && c.clientId !== clientId) {
      throw new InvalidRequest('client_id differs from the authenticated client');
    }
    return { method: 'client_secret_basic', clientId, secret };
  }
  if (c.clientId === undefined) throw new InvalidClient('no client authentication');
  if (c.clientSecret !== undefined) {
    return { method: 'client_secret_post', clientId: c.clientId, secret: c.clientSecret };
  }
  return { method: 'none', clientId: c.clientId };
}

function secretMatches(storedHex: string | null, secret: string | undefined): boolean {
  const presentedHash = createHash('sha256')
    .update(secret ?? '', 'utf8')
    .digest();
  const stored = storedHex && /^[0-9a-f]{64}$/.test(storedHex) ? Buffer.from(storedHex, 'hex') : DUMMY_HASH;
  const equal = timingSafeEqual(presentedHash, stored);
  return equal && storedHex !== null && secret !== undefined;
}

/**
 * The client_id a request presents, unauthenticated (CORS decides by it: CORS is not authentication, the grant
 * authenticates the client afterwards); undefined when it names none or its Basic credentials are malformed.
 */
export function presentedClientId(authorization: string | undefined, body: unknown): string | undefined {
  const fromBody = (body as { client_id?: unknown } | undefined)?.client_id;
  try {
    if (authorization !== undefined && /^basic /i.test(authorization.trim())) {
      return decodeBasic(authorization).clientId;
    }
  } catch {
    return undefined;
  }
  return typeof fromBody === 'string' ? fromBody : undefined;
}

/** The authenticated client; InvalidClient (401) for an unknown client, a wrong secret or another method. */
export async function authenticateClient(deps: OidcDomainDeps, c: ClientCredentials): Promise<OidcClient> {
  const p = presented(c);
  const client = await deps.ports.clients.get(p.clientId);
  const basic = p.method === 'client_secret_basic';
  if (p.method === 'none') {
    if (!client?.active || client.authMethod !== 'none')
      throw new InvalidClient('client authentication failed');
    return client;
  }
  // Always hash and compare, whatever the client lookup found.
  const ok = secretMatches(client?.secretHash ?? null, p.secret);
  if (!client?.active || client.authMethod !== p.method || !ok) {
    throw new InvalidClient('client authentication failed', basic);
  }
  return client;
}
