// Read-only view of application sessions for /errand: is the session behind an access token still active, and
// (for a workload session) still authoritative, in one read.
import { type Db, runPrepared, type Statement } from '@svc/db';
import { SESSION_WORKLOAD_AUTHORITY_SQL } from '@svc/issuance/shared-sql';
import type { SessionState, SessionStore } from '../domain/ports';

const FIND_SESSION: Statement = {
  name: 'errand_session_v3',
  text: `SELECT s.application_id AS "applicationId", s.account_id AS "accountId", s.status,
      s.expires_at AS "expiresAt", s.workload_id AS "workloadId", s.actor_subject AS "actorSubject",
      s.authority_version AS "authorityVersion",
      ${SESSION_WORKLOAD_AUTHORITY_SQL} AS "workloadOk"
    FROM sessions s WHERE s.id = $1::text`,
};

export function createSessionStore(db: Db): SessionStore {
  return {
    async find(sid) {
      // The columns are named as SessionState's fields: the row is the state.
      const [row] = await runPrepared<SessionState>(db, FIND_SESSION, [sid]);
      return row ?? null;
    },
  };
}
