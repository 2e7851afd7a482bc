// The state of an application session as native's /errand reads it: active or not, its authority version, and
// for a workload session whether the workload authority rule still holds, in one read by the issuance store
// (store/session-states.ts), whose statement embeds the rule's SQL; no host embeds it (#37).

export interface SessionState {
  applicationId: string;
  accountId: string;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  expiresAt: Date;
  workloadId: string | null;
  actorSubject: string | null;
  /** The account authority version the session was issued under (null for sessions from before the record). */
  authorityVersion: number | null;
  /** The workload authority rule (the one introspection and refresh apply); true for account sessions. */
  workloadOk: boolean;
}

/** The application sessions /errand reads: state and, for a workload session, authority, in one read. */
export interface SessionStates {
  find(sid: string): Promise<SessionState | null>;
}
