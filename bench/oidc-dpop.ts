// The OIDC host's refresh grant with DPoP for `pnpm bench` (BENCH_ONLY=oidc-refresh-dpop): the same confidential
// client and circulating refresh tokens as bench/oidc.ts, each grant carrying a fresh ES256 proof (the access token
// comes back bound, cnf.jkt). Proofs are signed before each run, outside the measured time, so the load generator
// does not sign on the cores the host runs on; a run at ~2,000 grants/s for 5 s uses fewer than the pool holds.
// Also the proof's own cost: verifyDpopProof in this process (ES256 verify, thumbprint, claims) per proof.
import { dpopKey, dpopProof } from '@svc/testkit';
import { verifyDpopProof } from '@svc/token-core';
import type autocannon from 'autocannon';
import { type BenchHost, startHostProcess } from './hosts';
import { type AtLevels, oidcRefreshSeeder } from './oidc';

const PORT = 24111;
/** Proofs signed before each run: more than a run at this machine's rate presents (warm-up 3 s + 5 s). */
const PROOFS_PER_RUN = Number(process.env.BENCH_DPOP_PROOFS ?? 30_000);

/** Microseconds one proof's verification takes here (no replay round trip: an in-memory set). */
export async function proofVerifyMicros(n = 5000): Promise<number> {
  const key = await dpopKey('ES256');
  const htu = 'https://oidc.bench.test/token';
  const proofs = Array.from({ length: n }, () => dpopProof(key, { htm: 'POST', htu }));
  const seen = new Set<string>();
  const replay = async (_jkt: string, jti: string) => !seen.has(jti) && !!seen.add(jti);
  for (const proof of proofs.slice(0, 500)) {
    await verifyDpopProof({ proof, method: 'POST', url: htu, now: Date.now(), replay: async () => true });
  }
  const start = process.hrtime.bigint();
  for (const proof of proofs)
    await verifyDpopProof({ proof, method: 'POST', url: htu, now: Date.now(), replay });
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

export async function benchOidcRefreshDpop(
  infra: Parameters<typeof oidcRefreshSeeder>[0],
  hosts: BenchHost[],
  atLevels: AtLevels,
  refreshTokenOf: (body: string, member?: string) => string,
  opts: { processes: string; poolSize: number },
) {
  const url = `http://127.0.0.1:${PORT}`;
  const oidc = await startHostProcess('oidc', PORT, { WEB_CONCURRENCY: opts.processes, OIDC_URL: url });
  hosts.push(oidc);
  const { basic, seedOne } = await oidcRefreshSeeder(infra, url);
  const key = await dpopKey('ES256');
  const pool: string[] = [];
  let proofs: string[] = [];
  const topUp = async () => {
    const missing = Math.max(0, opts.poolSize - pool.length);
    for (let i = 0; i < missing; i += 16) {
      pool.push(...(await Promise.all(Array.from({ length: Math.min(16, missing - i) }, seedOne))));
    }
    proofs = Array.from({ length: PROOFS_PER_RUN }, () =>
      dpopProof(key, { htm: 'POST', htu: `${url}/token` }),
    );
  };
  const figures = await atLevels(
    'oidc /token refresh + DPoP',
    'oidc refresh grant with a DPoP proof (3 signatures)',
    'the plain grant less at most the proof verification',
    async () => {
      await topUp();
      return {
        url: `${url}/token`,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
            setupRequest: (req) => ({
              ...req,
              headers: { ...req.headers, dpop: proofs.pop() ?? '' },
              body: `grant_type=refresh_token&refresh_token=${pool.shift()}`,
            }),
            onResponse: (status, body) => {
              if (status === 200) pool.push(refreshTokenOf(body, 'refresh_token'));
              else if (process.env.BENCH_DEBUG) console.error(status, body.slice(0, 200));
            },
          },
        ],
      };
    },
    3,
  );
  const micros = await proofVerifyMicros();
  console.log(`  DPoP proof verification in-process: ${micros.toFixed(1)} µs per ES256 proof (one core)`);
  return { ...figures, proofVerifyMicros: micros };
}
