// Authorization codes: stored as SHA-256 of the code, consumed by one conditional write (the first exchange wins
// on every replica), a replay marked on the row so that it can revoke what the winning exchange issued.
import type { Db } from '@svc/db';
import type { CodeStore, ConsumeResult, NewCode } from '../domain/ports';

interface RawCode {
  id: string;
  oidc_client_id: string;
  application_id: string;
  account_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  dpop_jkt: string | null;
  nonce: string | null;
  scope: string;
  auth_time: Date;
  amr: string[] | null;
  acr: string | null;
  browser_session_id: string | null;
  authority_version: number | null;
}

export function createCodeStore(db: Db): CodeStore {
  return {
    async insert(code: NewCode): Promise<void> {
      await db.oidcAuthorizationCode.create({ data: code });
    },

    /** Consumes the code at `now` if it is unconsumed and unexpired; otherwise marks a replay of a consumed one. */
    async consume(codeHash: string, now: Date): Promise<ConsumeResult> {
      const won = await db.$queryRaw<RawCode[]>`
        UPDATE oidc_authorization_codes SET consumed_at = ${now}
        WHERE code_hash = ${codeHash} AND consumed_at IS NULL AND expires_at > ${now}
        RETURNING id, oidc_client_id, application_id, account_id, redirect_uri, code_challenge, nonce, scope,
          auth_time, amr, acr, browser_session_id, authority_version, dpop_jkt`;
      const r = won[0];
      if (r) {
        return {
          kind: 'consumed',
          code: {
            id: r.id,
            oidcClientId: r.oidc_client_id,
            applicationId: r.application_id,
            accountId: r.account_id,
            redirectUri: r.redirect_uri,
            codeChallenge: r.code_challenge,
            dpopJkt: r.dpop_jkt,
            nonce: r.nonce,
            scope: r.scope,
            authTime: r.auth_time,
            amr: r.amr ?? [],
            acr: r.acr,
            browserSessionId: r.browser_session_id,
            authorityVersion: r.authority_version,
          },
        };
      }
      const replayed = await db.$queryRaw<{ sid: string | null }[]>`
        UPDATE oidc_authorization_codes SET replayed_at = COALESCE(replayed_at, ${now})
        WHERE code_hash = ${codeHash} AND consumed_at IS NOT NULL
        RETURNING sid`;
      return replayed[0] ? { kind: 'replayed', sid: replayed[0].sid } : { kind: 'invalid' };
    },

    /**
     * Records the session the exchange issued. Returns true when a replay was marked meanwhile (before this
     * write, so the replay could not see the sid): the caller then revokes the session itself.
     */
    async attachSession(codeId: string, sid: string): Promise<boolean> {
      const rows = await db.$queryRaw<{ replayed_at: Date | null }[]>`
        UPDATE oidc_authorization_codes SET sid = ${sid} WHERE id = ${codeId}::uuid RETURNING replayed_at`;
      return rows[0]?.replayed_at != null;
    },
  };
}
