// Session calls. /refresh is single-flight per refresh token inside this process: concurrent callers presenting
// one token share one rotation and all get the new pair, and a caller arriving shortly after gets that pair too,
// so two tabs or requests never present a consumed token (which revokes the whole family). /revoke-all signs a
// fresh client-auth JWT for each attempt (spec: a retry needs a new jti).
import { type Context, isNetworkFailure } from './context.ts';
import { SigninApiError } from './errors.ts';
import { AUDIENCE, CLIENT_AUTH_TYP, signBound } from './signing.ts';
import type { ClaimStateResult, IntrospectResult, TokenPair, UserInfo } from './types.ts';

export interface SessionCallOptions {
  /** How long a finished rotation's pair is handed to later callers of the same old token (default 10 000 ms). */
  refreshResultMs?: number;
  /** A /refresh whose answer was lost is retried only this soon after it started (default 1500 ms). */
  refreshRetryWithinMs?: number;
}

const bearer = (accessToken: string) => ({ headers: { authorization: `Bearer ${accessToken}` } });

export function sessionCalls(ctx: Context, opts: SessionCallOptions = {}) {
  const resultMs = opts.refreshResultMs ?? 10_000;
  const retryWithinMs = opts.refreshRetryWithinMs ?? 1500;
  const inflight = new Map<string, Promise<TokenPair>>();
  const finished = new Map<string, { pair: TokenPair; until: number }>();

  const forget = (now: number) => {
    for (const [token, entry] of finished) if (entry.until <= now) finished.delete(token);
  };

  async function rotate(refreshToken: string): Promise<TokenPair> {
    // A lost answer is retried with the same token only while the retry is near-simultaneous: the session host
    // hands such a retry the pair already issued (spec, Session states), but the same token presented after its
    // window (REFRESH_RETRY_WINDOW_MS, default 2 s) is reuse and revokes the family.
    const started = ctx.now();
    return ctx.retrying(
      () => ctx.post<TokenPair>('session', '/refresh', { refreshToken }),
      (err) => isNetworkFailure(err) && ctx.now() - started < retryWithinMs,
    );
  }

  return {
    /**
     * Rotates the refresh token; store the new pair, the old refresh token is spent. Callers in this process
     * presenting the same token at once share one rotation.
     */
    refresh(refreshToken: string): Promise<TokenPair> {
      const now = ctx.now();
      forget(now);
      const done = finished.get(refreshToken);
      if (done) return Promise.resolve(done.pair);
      let pending = inflight.get(refreshToken);
      if (!pending) {
        pending = rotate(refreshToken).then((pair) => {
          finished.set(refreshToken, { pair, until: ctx.now() + resultMs });
          return pair;
        });
        const shared = pending;
        inflight.set(refreshToken, shared);
        shared.then(
          () => inflight.delete(refreshToken),
          () => inflight.delete(refreshToken),
        );
      }
      return pending;
    },

    /** Revokes the session of this refresh token (any genuine version). Idempotent. */
    logout(refreshToken: string): Promise<{ revoked: boolean }> {
      return ctx.post('session', '/logout', { refreshToken });
    },

    /** The session's live status (for sensitive operations, beside verify). */
    introspect(accessToken: string): Promise<IntrospectResult> {
      return ctx.post('session', '/introspect', { accessToken });
    },

    /** The person's profile, read live, as the claim policy and consent allow. */
    userinfo(accessToken: string): Promise<UserInfo> {
      return ctx.get('session', '/userinfo', bearer(accessToken));
    },

    /** The live requirement and consent state of each claim, without values. */
    claimState(accessToken: string): Promise<ClaimStateResult> {
      return ctx.get('session', '/claim-state', bearer(accessToken));
    },

    /** Revokes every session of `subject` under this application (client-auth JWT, audience service-session). */
    revokeAll(subject: string): Promise<{ revoked: boolean }> {
      const body = JSON.stringify({ subject });
      return ctx.retrying(
        async () => {
          const jws = await signBound(await ctx.clientSigner(), {
            typ: CLIENT_AUTH_TYP,
            iss: ctx.anchor,
            aud: AUDIENCE.session,
            body,
            nowMs: ctx.now(),
          });
          return ctx.post<{ revoked: boolean }>('session', '/revoke-all', body, {
            headers: { authorization: `ClientAuth ${jws}` },
          });
        },
        // Revoking again is harmless (idempotent), so a lost answer or a passing outage is retried.
        (err) => isNetworkFailure(err) || (err instanceof SigninApiError && err.status === 503),
      );
    },
  };
}
