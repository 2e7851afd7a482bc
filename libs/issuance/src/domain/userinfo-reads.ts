// What the OIDC host's /userinfo reads about an OIDC session in one statement: the session with its account and
// claim grants (the issuance snapshot). The issuance store owns the statement (store/userinfo-reads.ts), since it
// embeds the snapshot's columns; the host reaches it through this port, never through the core's SQL (#37).
import type { IssuanceSnapshot } from './ports';

export interface UserinfoRead {
  applicationId: string;
  subject: string;
  scope: string | null;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  expiresAt: Date;
  /** The account's authority version the session was issued under (null before sessions recorded it). */
  authorityVersion: number | null;
  /** The session's account (null when it is gone) and its claim grants under the session's application. */
  snapshot: IssuanceSnapshot;
}

export interface UserinfoReads {
  /** The OIDC session of `sid` with its account and grants (protocol OIDC only), or undefined. */
  readForUserinfo(sid: string): Promise<UserinfoRead | undefined>;
}
