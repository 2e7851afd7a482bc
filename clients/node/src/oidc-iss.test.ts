// The attack on the OIDC callback (RFC 9207): the issuer's discovery says it sends `iss`, and a callback arrives
// without it (a mix-up attacker's answer); the client refuses it before touching the code.
import { createOidcClient } from './oidc.ts';

const ISSUER = `https://issuer-${Math.random().toString(36).slice(2)}.test`;

function client(issSupported: boolean) {
  const calls: string[] = [];
  const oidc = createOidcClient({
    issuer: ISSUER,
    clientId: 'c1',
    redirectUri: 'https://app.test/cb',
    fetch: async (url) => {
      calls.push(String(url));
      const doc = {
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/authorize`,
        token_endpoint: `${ISSUER}/token`,
        jwks_uri: `${ISSUER}/jwks`,
        authorization_response_iss_parameter_supported: issSupported,
      };
      return new Response(JSON.stringify(doc), { headers: { 'content-type': 'application/json' } });
    },
  });
  return { oidc, calls };
}

const pending = { state: 's1', nonce: 'n1', codeVerifier: 'v'.repeat(43) };

test('a callback without iss is refused when discovery says iss is sent', async () => {
  const { oidc, calls } = client(true);
  const err = await oidc.callback({ state: 's1', code: 'c' }, pending as never).catch((e: unknown) => e);
  expect((err as { body?: { error?: string } }).body?.error).toBe('invalid_issuer');
  expect(calls.some((u) => u.endsWith('/token'))).toBe(false);
});

test('a callback with a wrong iss is refused', async () => {
  const { oidc } = client(false);
  const err = await oidc
    .callback({ state: 's1', code: 'c', iss: 'https://evil.test' }, pending as never)
    .catch((e: unknown) => e);
  expect((err as { body?: { error?: string } }).body?.error).toBe('invalid_issuer');
});
