// What an OIDC-issued session keeps beside its sessions row (oidc_sessions): the client it was issued to, the
// authentication references of later ID tokens and the browser sign-in session. Each request reads it in one
// statement: /userinfo with the session's account and grants, /end-session the live sessions of a sign-in.
import { type Db, runPrepared, type Statement } from '@svc/db';
import { type SnapshotColumns, snapshotColumnsSql, toSnapshot } from '@svc/issuance/shared-sql';
import type { NewOidcSession, OidcSessionStore, UserinfoRead } from '../domain/ports';

/** The statement's row: the session's columns under the record's names, then the snapshot's. */
type UserinfoColumns = SnapshotColumns & Omit<UserinfoRead, 'snapshot'>;

// One round trip: the session (OIDC protocol, with its oidc_sessions row), its account and grants. Userinfo does
// not check the basic terms, so the terms epoch is 0 and the snapshot's receipt goes unused.
const USERINFO_READ: Statement = {
  name: 'oidc_userinfo_read_v3',
  text: `SELECT s.application_id AS "applicationId", s.subject, s.scope, s.status, s.expires_at AS "expiresAt",
      s.authority_version AS "authorityVersion", ${snapshotColumnsSql('s.application_id', '0')}
    FROM oidc_sessions o JOIN sessions s ON s.id = o.sid AND s.protocol = 'OIDC'
      LEFT JOIN accounts a ON a.id = s.account_id
    WHERE o.sid = $1::text`,
};

export function createOidcSessionStore(db: Db): OidcSessionStore {
  return {
    async insert(row: NewOidcSession): Promise<void> {
      await db.oidcSession.create({ data: row });
    },

    /** The OIDC session of `sid` with its account and grants (protocol OIDC only), or undefined. */
    async readForUserinfo(sid: string): Promise<UserinfoRead | undefined> {
      const [row] = await runPrepared<UserinfoColumns>(db, USERINFO_READ, [sid]);
      if (!row) return undefined;
      const { applicationId, subject, scope, status, expiresAt, authorityVersion } = row;
      const snapshot = toSnapshot(row, undefined);
      return { applicationId, subject, scope, status, expiresAt, authorityVersion, snapshot };
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
