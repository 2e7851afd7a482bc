// Read-only view of application sessions for /errand: is the session behind an access token still active.
import type { Db } from '@svc/db';

export interface SessionState {
  applicationId: string;
  accountId: string;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  expiresAt: Date;
}

export function createSessionStore(db: Db) {
  return {
    find(sid: string): Promise<SessionState | null> {
      return db.session.findUnique({
        where: { id: sid },
        select: { applicationId: true, accountId: true, status: true, expiresAt: true },
      });
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
