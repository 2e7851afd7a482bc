// The benchmark's reference: node-oidc-provider's refresh-token grant (in-memory adapter, rotation on, an RS256 JWT
// access token and an RS256 ID token per grant), served alone on PORT; POST /bench/seed?n=N mints N refresh tokens.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';

const port = Number(process.env.PORT ?? 24109);
const issuer = `http://127.0.0.1:${port}`;
const CLIENT_ID = 'bench-client';
/** The resource server whose access tokens are JWTs, as ours are. */
const RESOURCE = 'https://api.bench.test';
const ACCOUNT = 'bench-account';

async function main(): Promise<void> {
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingJwk = {
    ...privateKey.export({ format: 'jwk' }),
    kid: 'bench-rs256',
    alg: 'RS256',
    use: 'sig',
  };
  const provider = new Provider(issuer, {
    // No adapter: node-oidc-provider's own in-memory adapter.
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['https://rp.bench.test/cb'],
        id_token_signed_response_alg: 'RS256',
      },
    ],
    jwks: { keys: [signingJwk as never] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: ['openid', 'offline_access', 'api'],
    rotateRefreshToken: true,
    ttl: { Grant: 14 * 86_400, RefreshToken: 14 * 86_400, AccessToken: 900, IdToken: 3600 },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: 'api',
          audience: RESOURCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 900,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });

  /** Refresh tokens as a completed authorization-code grant leaves them: a grant, then its refresh token. */
  async function seed(n: number): Promise<string[]> {
    const client = await provider.Client.find(CLIENT_ID);
    const now = Math.floor(Date.now() / 1000);
    return Promise.all(
      Array.from({ length: n }, async () => {
        const grant = new provider.Grant({ accountId: ACCOUNT, clientId: CLIENT_ID });
        grant.addOIDCScope('openid offline_access');
        grant.addResourceScope(RESOURCE, 'api');
        const grantId = await grant.save();
        const token = new provider.RefreshToken({
          accountId: ACCOUNT,
          client,
          grantId,
          gty: 'authorization_code',
          scope: 'openid offline_access api',
          resource: RESOURCE,
          authTime: now,
          iiat: now,
        });
        return token.save();
      }),
    );
  }

  const handle = provider.callback();
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/bench/seed')) {
      const n = Number(new URL(req.url, issuer).searchParams.get('n') ?? 1);
      seed(n).then(
        (tokens) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ refreshTokens: tokens }));
        },
        (err: unknown) => {
          res.statusCode = 500;
          res.end(String(err));
        },
      );
      return;
    }
    if (req.url === '/readyz') {
      res.end('ok');
      return;
    }
    handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
