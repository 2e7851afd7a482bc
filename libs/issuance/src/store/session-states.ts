// Read-only view of application sessions for native's /errand: is the session behind an access token still active,
// and (for a workload session) still authoritative, in one read. With the issuance stores because it embeds the
// workload authority rule's SQL (issuance-reads.ts); the host reaches it through the SessionStates port (#37).
// The statement's name and text are the ones native's own store had.
import { type Db, runPrepared, type Statement } from '@svc/db';
import type { SessionState, SessionStates } from '../domain/session-states';
import { SESSION_WORKLOAD_AUTHORITY_SQL } from './issuance-reads';

const FIND_SESSION: Statement = {
  name: 'errand_session_v3',
  text: `SELECT s.application_id AS "applicationId", s.account_id AS "accountId", s.status,
      s.expires_at AS "expiresAt", s.workload_id AS "workloadId", s.actor_subject AS "actorSubject",
      s.authority_version AS "authorityVersion",
      ${SESSION_WORKLOAD_AUTHORITY_SQL} AS "workloadOk"
    FROM sessions s WHERE s.id = $1::text`,
};

export function createSessionStatesStore(db: Db): SessionStates {
  return {
    async find(sid) {
      // The columns are named as SessionState's fields: the row is the state.
      const [row] = await runPrepared<SessionState>(db, FIND_SESSION, [sid]);
      return row ?? null;
    },
  };
}
