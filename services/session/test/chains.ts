// Refresh chains driven by fault tests: one chain per load worker, every successor recorded, so a test can show
// that no chain forked (two different successors of one token) and none was lost (its last token still works).
import { postJson, type TestInfra } from '@svc/testkit';
import { decodeJwt } from 'jose';

export interface RefreshChains {
  /** The newest refresh token each chain holds. */
  readonly tokens: string[];
  /** Tokens that were answered with two different successors. */
  readonly forks: string[];
  /** One /refresh of chain `worker` at `url`; a 200 moves the chain on. */
  refresh(
    worker: number,
    url: string,
  ): Promise<{ status: number; reason?: string; retryAfter?: string | null }>;
  /** Asserts every chain is intact: its session active at the version it holds, and its last token refreshes. */
  expectIntact(infra: TestInfra, url: string): Promise<void>;
}

/**
 * Chains of tokens, one per load worker (any host's refresh tokens): every successor recorded, so a token answered
 * with two different successors shows as a fork.
 */
export function tokenChains(first: string[]) {
  const tokens = [...first];
  const successors = new Map<string, string>();
  const forks: string[] = [];
  return {
    tokens,
    forks,
    /** Chain `worker` presented `presented` and was answered `next`, which it holds from now on. */
    advance(worker: number, presented: string, next: string): void {
      const seen = successors.get(presented);
      if (seen !== undefined && seen !== next) forks.push(presented);
      successors.set(presented, next);
      tokens[worker] = next;
    },
  };
}

export function refreshChains(first: string[]): RefreshChains {
  const chains = tokenChains(first);
  const { tokens, forks } = chains;
  return {
    tokens,
    forks,
    async refresh(worker, url) {
      const presented = tokens[worker]!;
      const res = await postJson(`${url}/refresh`, { refreshToken: presented });
      if (res.status === 200) chains.advance(worker, presented, res.body.refreshToken as string);
      return { status: res.status, reason: res.body?.reason, retryAfter: res.headers.get('retry-after') };
    },
    async expectIntact(infra, url) {
      expect(forks).toEqual([]);
      for (const token of tokens) {
        const claims = decodeJwt(token);
        const session = await infra.db.session.findUniqueOrThrow({ where: { id: claims.sid as string } });
        expect({ status: session.status, version: session.currentVersion, jti: session.currentJti }).toEqual({
          status: 'ACTIVE',
          version: claims.rotationVersion,
          jti: claims.jti,
        });
      }
      const again = await Promise.all(tokens.map((t) => postJson(`${url}/refresh`, { refreshToken: t })));
      expect(again.map((r) => r.status)).toEqual(tokens.map(() => 200));
    },
  };
}
