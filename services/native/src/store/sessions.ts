// Read-only view of application sessions for /errand: is the session behind an access token still active, and
// (for a workload session) still authoritative, in one read.
import { type Db, runPrepared, type Statement } from '@svc/db';
import { workloadAuthoritySql } from '@svc/issuance';

export interface SessionState {
  applicationId: string;
  accountId: string;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  expiresAt: Date;
  workloadId: string | null;
  actorSubject: string | null;
  /** The workload authority rule (the one introspection and refresh apply); true for account sessions. */
  workloadOk: boolean;
}

const FIND_SESSION: Statement = {
  name: 'errand_session_v1',
  text: `SELECT s.application_id, s.account_id, s.status, s.expires_at, s.workload_id, s.actor_subject,
      ${workloadAuthoritySql({
        workloadId: 's.workload_id',
        generation: 's.workload_generation',
        actorSubject: 's.actor_subject',
        credentialId: 's.source_credential_id',
      })} AS workload_ok
    FROM sessions s WHERE s.id = $1::text`,
};

interface SessionRow {
  application_id: string;
  account_id: string;
  status: SessionState['status'];
  expires_at: Date;
  workload_id: string | null;
  actor_subject: string | null;
  workload_ok: boolean;
}

export function createSessionStore(db: Db) {
  return {
    async find(sid: string): Promise<SessionState | null> {
      const [row] = await runPrepared<SessionRow>(db, FIND_SESSION, [sid]);
      if (!row) return null;
      return {
        applicationId: row.application_id,
        accountId: row.account_id,
        status: row.status,
        expiresAt: row.expires_at,
        workloadId: row.workload_id,
        actorSubject: row.actor_subject,
        workloadOk: row.workload_ok,
      };
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
