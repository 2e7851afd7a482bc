// What an OIDC-issued session keeps beside its sessions row (oidc_sessions): the client it was issued to, the
// authentication references of later ID tokens and the browser sign-in session; read with the session's
// subject, auth_time and scope in one statement.
import type { Db } from '@svc/db';

export interface NewOidcSession {
  sid: string;
  oidcClientId: string;
  clientId: string;
  amr: string[];
  acr: string | null;
  browserSessionId: string | null;
}

export interface OidcSessionView extends NewOidcSession {
  applicationId: string;
  accountId: string;
  subject: string;
  authTime: Date;
  scope: string | null;
  accessTtl: number;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  expiresAt: Date;
}

interface RawView {
  sid: string;
  oidc_client_id: string;
  client_id: string;
  amr: string[] | null;
  acr: string | null;
  browser_session_id: string | null;
  application_id: string;
  account_id: string;
  subject: string;
  auth_time: Date;
  scope: string | null;
  access_ttl: number;
  status: OidcSessionView['status'];
  expires_at: Date;
}

export function createOidcSessionStore(db: Db) {
  return {
    async insert(row: NewOidcSession): Promise<void> {
      await db.oidcSession.create({ data: row });
    },

    /** The OIDC session with its sessions row (protocol OIDC only), or undefined. */
    async read(sid: string): Promise<OidcSessionView | undefined> {
      const rows = await db.$queryRaw<RawView[]>`
        SELECT o.sid, o.oidc_client_id, o.client_id, o.amr, o.acr, o.browser_session_id, s.application_id,
          s.account_id, s.subject, s.auth_time, s.scope, s.access_ttl, s.status, s.expires_at
        FROM oidc_sessions o JOIN sessions s ON s.id = o.sid AND s.protocol = 'OIDC'
        WHERE o.sid = ${sid}`;
      const r = rows[0];
      if (!r) return undefined;
      return {
        sid: r.sid,
        oidcClientId: r.oidc_client_id,
        clientId: r.client_id,
        amr: r.amr ?? [],
        acr: r.acr,
        browserSessionId: r.browser_session_id,
        applicationId: r.application_id,
        accountId: r.account_id,
        subject: r.subject,
        authTime: r.auth_time,
        scope: r.scope,
        accessTtl: r.access_ttl,
        status: r.status,
        expiresAt: r.expires_at,
      };
    },

    /**
     * The live (active or suspended) OIDC sessions of one client for one person from one sign-in (auth_time to the
     * second, as ID tokens state it); found through the sessions (account, application) index.
     */
    async liveOfSignIn(q: {
      oidcClientId: string;
      applicationId: string;
      accountId: string;
      subject: string;
      authTime: number;
    }): Promise<string[]> {
      const rows = await db.$queryRaw<{ sid: string }[]>`
        SELECT s.id AS sid
        FROM sessions s JOIN oidc_sessions o ON o.sid = s.id
        WHERE s.account_id = ${q.accountId}::uuid AND s.application_id = ${q.applicationId}::uuid
          AND s.protocol = 'OIDC' AND s.status IN ('ACTIVE', 'SUSPENDED') AND s.subject = ${q.subject}
          AND o.oidc_client_id = ${q.oidcClientId}::uuid
          AND s.auth_time >= to_timestamp(${q.authTime}) AND s.auth_time < to_timestamp(${q.authTime + 1})`;
      return rows.map((r) => r.sid);
    },
  };
}

export type OidcSessionStore = ReturnType<typeof createOidcSessionStore>;
