// What an OIDC-issued session keeps beside its sessions row (oidc_sessions): the client it was issued to, the
// authentication references of later ID tokens and the browser sign-in session. Each request reads it in one
// statement: /userinfo with the session's account and grants, /end-session the live sessions of a sign-in.
import { type Db, runPrepared, type Statement } from '@svc/db';
import type { NewOidcSession, OidcSessionStore } from '../domain/ports';

/** Everything of OidcSessionStore but the userinfo read, which the issuance store owns (deps.ts adds it). */
export function createOidcSessionStore(db: Db): Omit<OidcSessionStore, 'readForUserinfo'> {
  return {
    async insert(row: NewOidcSession): Promise<void> {
      await db.oidcSession.create({ data: row });
    },

    /** The client_id an OIDC session was issued to (CORS at /userinfo), or undefined. */
    async clientIdOf(sid: string): Promise<string | undefined> {
      const row = await db.oidcSession.findUnique({ where: { sid }, select: { clientId: true } });
      return row?.clientId;
    },

    /**
     * The live (active or suspended) OIDC sessions of one client for one subject from one sign-in (auth_time to the
     * second, as ID tokens state it), in one statement over the sessions (application, subject) index: the subject
     * an ID token states is the one its sessions were issued under.
     */
    async liveOfSignIn(q: {
      oidcClientId: string;
      applicationId: string;
      subject: string;
      authTime: number;
    }): Promise<string[]> {
      const rows = await db.$queryRaw<{ sid: string }[]>`
        SELECT s.id AS sid
        FROM sessions s JOIN oidc_sessions o ON o.sid = s.id
        WHERE s.application_id = ${q.applicationId}::uuid AND s.subject = ${q.subject}
          AND s.protocol = 'OIDC' AND s.status IN ('ACTIVE', 'SUSPENDED')
          AND o.oidc_client_id = ${q.oidcClientId}::uuid
          AND s.auth_time >= to_timestamp(${q.authTime}) AND s.auth_time < to_timestamp(${q.authTime + 1})`;
      return rows.map((r) => r.sid);
    },
  };
}
