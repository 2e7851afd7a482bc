// The OIDC host's refresh-token grant at /token for `pnpm bench` (BENCH_ONLY=oidc-refresh): client_secret_basic,
// rotation on, each grant signing three RS256 JWTs (the application access token, the rotated refresh token and
// the ID token on the platform key), so its ratio is to the signing bound over 3 signatures. Sessions are seeded
// through the real code exchange: codes made by the domain function /authorize calls, exchanged at /token.
import { createOidcClient } from '@svc/provisioning';
import { provisionAccount, provisionApp, type TestInfra } from '@svc/testkit';
import type autocannon from 'autocannon';
import { createAuthorizationCode } from '../services/oidc/src/domain/authorization';
import { PASSKEY_ACR, PASSKEY_AMR } from '../services/oidc/src/domain/scopes';
import { createClientStore } from '../services/oidc/src/store/clients';
import { createCodeStore } from '../services/oidc/src/store/codes';
import { type BenchHost, startHostProcess } from './hosts';

/** One load level's figures as bench/run.ts's atLevels reports them. */
export interface LevelFigures {
  connections: number;
  requestsPerSec: number;
  p99: number;
  ratioToBound?: number;
}

/** bench/run.ts's runner of a scenario at each issuing load level. */
export type AtLevels = (
  name: string,
  label: string,
  target: string,
  make: () => autocannon.Options | Promise<autocannon.Options>,
  signatures?: number,
) => Promise<{ levels: LevelFigures[]; reported?: LevelFigures }>;

const PORT = 24105;

/**
 * An OIDC client of a new application on the host at `url`, and `seedOne`: one OIDC session through the real
 * exchange (a code from the domain function /authorize calls, then POST /token), its refresh token.
 */
export async function oidcRefreshSeeder(infra: TestInfra, url: string) {
  const app = await provisionApp(infra, { methods: ['OIDC'] });
  const accounts = await Promise.all(Array.from({ length: 4 }, () => provisionAccount(infra)));
  const redirectUri = 'https://bench-rp.example/callback';
  const created = await createOidcClient(infra.provisioning, {
    anchor: app.anchor,
    redirectUris: [redirectUri],
  });
  const client = (await createClientStore(infra.db, infra.issuance.clock).get(created.clientId))!;
  const basic = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`;
  const codeDeps = {
    ports: { codes: createCodeStore(infra.db) },
    clock: infra.issuance.clock,
    oidc: { codeTtlSeconds: 600 },
  };

  let seeded = 0;
  const seedOne = async (): Promise<string> => {
    const code = await createAuthorizationCode(codeDeps, {
      client,
      accountId: accounts[seeded++ % accounts.length]!.id,
      redirectUri,
      scope: 'openid offline_access',
      nonce: `n${seeded}`,
      authTime: new Date(),
      amr: PASSKEY_AMR,
      acr: PASSKEY_ACR,
    });
    const res = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
      }).toString(),
    });
    if (res.status !== 200) throw new Error(`seeding exchange failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { refresh_token: string }).refresh_token;
  };
  return { app, basic, seedOne };
}

/**
 * One refresh grant as autocannon sends it: it presents a live token taken from `pool` and puts the rotated one
 * back (`path` when autocannon's url is the host's root rather than /token).
 */
export function refreshGrantRequest(
  basic: string,
  pool: string[],
  refreshTokenOf: (body: string, member?: string) => string,
  path?: string,
): autocannon.Request {
  return {
    method: 'POST',
    ...(path ? { path } : {}),
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    setupRequest: (req) => ({ ...req, body: `grant_type=refresh_token&refresh_token=${pool.shift()}` }),
    onResponse: (status, body) => {
      if (status === 200) pool.push(refreshTokenOf(body, 'refresh_token'));
      else if (process.env.BENCH_DEBUG) console.error(status, body.slice(0, 200));
    },
  };
}

export async function benchOidcRefresh(
  infra: TestInfra,
  hosts: BenchHost[],
  atLevels: AtLevels,
  refreshTokenOf: (body: string, member?: string) => string,
  opts: { processes: string; poolSize: number },
) {
  const url = `http://127.0.0.1:${PORT}`;
  const oidc = await startHostProcess('oidc', PORT, { WEB_CONCURRENCY: opts.processes, OIDC_URL: url });
  hosts.push(oidc);
  const { basic, seedOne } = await oidcRefreshSeeder(infra, url);

  // Tokens circulate as in the session /refresh scenario: each request presents a live token and returns the new
  // one to the pool; the pool is topped up with fresh sessions before every run.
  const pool: string[] = [];
  const topUp = async () => {
    const missing = Math.max(0, opts.poolSize - pool.length);
    for (let i = 0; i < missing; i += 16) {
      pool.push(...(await Promise.all(Array.from({ length: Math.min(16, missing - i) }, seedOne))));
    }
  };
  return atLevels(
    'oidc /token refresh',
    'oidc refresh grant (3 signatures)',
    '>= 0.5, ahead of node-oidc-provider',
    async () => {
      await topUp();
      return {
        url: `${url}/token`,
        requests: [refreshGrantRequest(basic, pool, refreshTokenOf)],
      };
    },
    3,
  );
}

/** Our OIDC refresh grant over node-oidc-provider's at each load level (requests/s; both sign per grant). */
export function compareOidcRefresh(ours: LevelFigures[], theirs: LevelFigures[]) {
  return ours.flatMap((o) => {
    const t = theirs.find((x) => x.connections === o.connections);
    if (!t) return [];
    const throughputRatio = o.requestsPerSec / t.requestsPerSec;
    console.log(
      `  oidc refresh / node-oidc-provider refresh @${o.connections}: ${throughputRatio.toFixed(2)}x (${o.requestsPerSec.toFixed(0)} vs ${t.requestsPerSec.toFixed(0)} req/s; ours signs 3 JWTs per grant, theirs 2 (opaque refresh token); p99 ${o.p99} vs ${t.p99} ms; target > 1x)`,
    );
    return [{ connections: o.connections, throughputRatio }];
  });
}
