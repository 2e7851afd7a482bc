// The OIDC host's /userinfo read: an OIDC session with its account and claim grants in one statement. With the
// issuance stores because it embeds the snapshot's columns (issuance-reads.ts); the host reaches it through the
// UserinfoReads port (#37). The statement's name and text are the ones the OIDC host's own store had.
import { type Db, runPrepared, type Statement } from '@svc/db';
import type { UserinfoRead, UserinfoReads } from '../domain/userinfo-reads';
import { type SnapshotColumns, snapshotColumnsSql, toSnapshot } from './issuance-reads';

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

export function createUserinfoReadsStore(db: Db): UserinfoReads {
  return {
    async readForUserinfo(sid: string): Promise<UserinfoRead | undefined> {
      const [row] = await runPrepared<UserinfoColumns>(db, USERINFO_READ, [sid]);
      if (!row) return undefined;
      const { applicationId, subject, scope, status, expiresAt, authorityVersion } = row;
      const snapshot = toSnapshot(row, undefined);
      return { applicationId, subject, scope, status, expiresAt, authorityVersion, snapshot };
    },
  };
}
