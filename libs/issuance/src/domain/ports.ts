// The ports of the issuance core: one interface per store it reads or writes (PostgreSQL and Redis), and the records
// that cross them. The rules take `IssuancePorts` (on IssuanceDeps) and never a database or Redis handle; the store
// factories (`createXStore(db | redis)` under store/) implement these interfaces, and the host binds them once.
import type { Clock } from '@svc/platform';
import type { ClaimGrants, PrincipalKind } from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import type { AccountProfile } from './claim-state';
import type { EmailDomainPolicyKind, EmailDomainStanding } from './email-domain';
import type { HeldAuthority } from './held-authority';
import type { Agreement, CurrentTerms } from './terms';

// ---- Records ----

export type SessionStatus = 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';

/** What the issuance checks read about an account under an application (null account: it does not exist). */
export interface IssuanceSnapshot {
  account: AccountProfile | null;
  /** A receipt at the current terms epoch or later (true when no terms were ever published). */
  hasReceipt: boolean;
  grants: ClaimGrants;
  /** Null unless the account's email domain has a BLOCK or REQUIRE_SSO policy. */
  emailDomain: EmailDomainStanding | null;
}

/** A session as a rotation sees it: everything a verdict and a re-mint need. */
export interface RotationSession {
  id: string;
  applicationId: string;
  protocol: 'APPLICATION' | 'OIDC';
  /** The authentication method the session was issued by. */
  authMethod: string;
  subject: string;
  actorSubject: string | null;
  status: SessionStatus;
  revokedReason: string | null;
  currentVersion: number;
  /** The current version's refresh jti. */
  currentJti: string;
  accessTtl: number;
  refreshTtl: number;
  expiresAt: Date;
  rotatedAt: Date | null;
  /** Until when a retry of the rotation that made the current version is answered (null: never; see rotation). */
  retryUntil: Date | null;
  /** The account's authority version when the session was issued (null: issued before it was kept). */
  authorityVersion: number | null;
  /** When the person authenticated (the OIDC host's ID tokens keep it across refreshes). */
  authTime: Date;
  /** The session's granted scope (OIDC sessions; null for the others). */
  scope: string | null;
}

/** What an OIDC session keeps beside its sessions row (oidc_sessions): its client and authentication references. */
export interface OidcRotationView {
  /** The client's row id (oidc_clients.id). */
  oidcClientId: string;
  amr: string[];
  acr: string | null;
  /** The DPoP key a public client's refresh token is bound to (RFC 7638 thumbprint), or null when unbound. */
  dpopJkt: string | null;
  /** The ID tokens' `sid` (the sign-in session's, OIDC Back-Channel Logout); null for a row from before it. */
  idTokenSid: string | null;
}

export interface RotationRead {
  session: RotationSession;
  /** The OIDC session row of an OIDC-protocol session (null for every other session, or when it is missing). */
  oidc: OidcRotationView | null;
  /** The workload authority rule over the session (true for account sessions). */
  workloadOk: boolean;
  snapshot: IssuanceSnapshot;
  /** When PostgreSQL began the read (its own clock): the write's deadline counts from here. */
  readAt: Date;
}

/** What issuance reads before a new session, with the terms it was read against. */
export interface IssueRead {
  snapshot: IssuanceSnapshot;
  /** The principal's current pairwise subject in the sector (null: none yet, created at issue). */
  subject: string | null;
  /** The workload's current pairwise subject (null: an account, or none yet). */
  actorSubject: string | null;
  terms: CurrentTerms | undefined;
}

/** Whose issue read: an account (and its workload, if any) under an application and its sector. */
export interface IssueReadScope {
  accountId: string;
  applicationId: string;
  sectorId: string;
  workload?: { kind: 'AGENT' | 'AUTOMATION'; id: string };
}

/** A workload session's references, as the workload authority rule reads them. */
export interface WorkloadAuthorityRef {
  workloadId: string;
  workloadGeneration: number | null;
  actorSubject: string;
  sourceCredentialId: string | null;
}

/** A new session at its first refresh version. */
export interface NewSession {
  id: string;
  applicationId: string;
  protocol: 'APPLICATION' | 'OIDC';
  accountId: string;
  workloadId: string | null;
  workloadGeneration: number | null;
  subject: string;
  actorSubject: string | null;
  authMethod: string;
  sourceCredentialId: string | null;
  accessTtl: number;
  refreshTtl: number;
  authTime: Date;
  createdAt: Date;
  expiresAt: Date;
  scope: string | null;
  currentJti: string;
  /** Inserted only while the account's authority version is this one (when given); the session keeps it. */
  expectedAuthority: number | null;
}

/** An insert's outcome: inserted, refused by its condition (false), or failed alone with this error. */
export type InsertOutcome = boolean | { failed: unknown };

export interface ConsumeInput {
  sid: string;
  presented: number;
  next: number;
  at: Date;
  expiresAt: Date;
  /**
   * Until when a retry of this rotation gets its pair again (`at` plus the rotating host's allowance); null for a
   * strict rotation, whose consumed version is then reuse wherever it is presented.
   */
  retryUntil: Date | null;
  jti: string;
  /** The session's scope from this version on (the OIDC host's narrowing); unchanged when null or absent. */
  scope?: string | null;
  /** Not applied if PostgreSQL starts the write at or after this instant (its clock); none when absent. */
  deadline?: Date;
}

/** A session's current refresh version, as logout checks a presented one against it. */
export interface SessionVersion {
  id: string;
  applicationId: string;
  status: SessionStatus;
  expiresAt: Date;
  currentVersion: number;
  currentJti: string;
}

export interface NewErrand {
  errandKeyHash: string;
  applicationId: string;
  accountId: string;
  purpose: 'CLAIMS';
  claims: string[];
  expiresAt: Date;
}

export interface SubjectPrincipal {
  kind: PrincipalKind;
  id: string;
}

/** A current pairwise subject and the principal behind it. */
export interface SubjectOwner {
  sectorId: string;
  subject: string;
  principalKind: PrincipalKind;
  principalId: string;
  generation: number;
}

// ---- Ports ----

/** Accounts: profile and standing, claim grants per application, email-domain policy, held authority. */
export interface AccountsPort {
  loadAccount(accountId: string): Promise<AccountProfile | null>;
  loadGrants(accountId: string, applicationId: string): Promise<ClaimGrants>;
  /** The policy of an address's domain (ALLOW when it has none). */
  emailDomainPolicyOf(email: string): Promise<EmailDomainPolicyKind>;
  /** The account's current authority, one primary-key read; undefined when the account is gone. */
  currentAuthority(accountId: string): Promise<HeldAuthority | undefined>;
}

/** Basic-terms agreements: the published revisions and the receipts accounts hold. */
export interface AgreementsPort {
  currentTerms(): Promise<CurrentTerms | undefined>;
  /** A receipt at the current acceptance epoch or later (true when no terms were ever published). */
  hasCurrentReceipt(accountId: string, terms: CurrentTerms | undefined): Promise<boolean>;
  recordReceipt(
    accountId: string,
    terms: CurrentTerms,
    channel: string,
    accepted?: { locale?: string; contentSha256?: string },
  ): Promise<void>;
  /** One published revision (undefined when there is no such revision). */
  termsRevision(revision: number): Promise<Agreement | undefined>;
}

export interface ApplicationsPort {
  loadApplication(by: { anchor: string } | { id: string }): Promise<ApplicationContext | undefined>;
}

export interface ErrandsPort {
  insertErrand(errand: NewErrand): Promise<void>;
}

/** The combined reads of issuance, each one round trip (the rotation read gathered per event-loop turn). */
export interface IssuanceReadsPort {
  readRotation(sid: string, terms: CurrentTerms | undefined): Promise<RotationRead | undefined>;
  readForIssue(scope: IssueReadScope, terms: CurrentTerms | undefined): Promise<IssueRead>;
  loadIssuanceSnapshot(
    accountId: string,
    applicationId: string,
    terms: CurrentTerms | undefined,
  ): Promise<IssuanceSnapshot>;
  readWorkloadAuthority(ref: WorkloadAuthorityRef): Promise<boolean>;
}

/** Pairwise sector subjects: current one (created on first use), rotation, and the principal behind one. */
export interface SectorSubjectsPort {
  resolveSectorSubject(secret: string, sectorId: string, principal: SubjectPrincipal): Promise<string>;
  rotateSectorSubject(
    secret: string,
    sectorId: string,
    principal: SubjectPrincipal,
    clock: Clock,
  ): Promise<string>;
  findBySubject(sectorId: string, subject: string): Promise<SubjectOwner | null>;
  accountBehindSubject(
    applicationId: string,
    subject: string,
    opts?: { current?: boolean },
  ): Promise<string | undefined>;
}

/** Sessions: inserts (gathered), the consuming write of a rotation (gathered), revocation, small reads. */
export interface SessionsPort {
  insertSession(row: NewSession): Promise<InsertOutcome>;
  insertSessionRedeeming(
    row: NewSession,
    redeemed: { inquiryId: string } | { deviceAuthorizationId: string },
    now: Date,
  ): Promise<boolean>;
  consumeVersion(input: ConsumeInput): Promise<boolean>;
  consumeVersions(inputs: ConsumeInput[]): Promise<boolean[]>;
  revokeSession(sid: string, reason: string, at: Date): Promise<void>;
  /**
   * Revokes the live OIDC sessions of the sign-in sessions named by their ID tokens' `sid` (every client each signed
   * into), with their events under one txn; returns the ids revoked.
   */
  revokeSignIns(idTokenSids: string[], reason: string, at: Date): Promise<string[]>;
  revokeAccountSessions(
    applicationId: string,
    accountId: string,
    reason: string,
    at: Date,
  ): Promise<string[]>;
  findSessionVersion(sid: string): Promise<SessionVersion | null>;
  /** The database's statement bound: a consuming write carries the read's start plus this as its deadline. */
  readonly statementTimeoutMs: number;
}

/** Session change notifications (Redis pub/sub), so every replica's session caches drop at once; never throws. */
export interface SessionEventsPort {
  publishSessionChange(sid: string): Promise<void>;
  publishSessionChanges(sids: string[]): Promise<void>;
}

/** Rotations whose answer was lost to a PostgreSQL failure (Redis); never throws, false when it cannot say. */
export interface UnansweredRotationsPort {
  markRotationUnanswered(sid: string, presented: number): Promise<void>;
  wasRotationUnanswered(sid: string, presented: number): Promise<boolean>;
}

/** Every store the issuance core uses, bound once by the host (libs/host host-core; testkit in tests). */
export interface IssuancePorts {
  accounts: AccountsPort;
  agreements: AgreementsPort;
  applications: ApplicationsPort;
  errands: ErrandsPort;
  issuanceReads: IssuanceReadsPort;
  sectorSubjects: SectorSubjectsPort;
  sessions: SessionsPort;
  sessionEvents: SessionEventsPort;
  unansweredRotations: UnansweredRotationsPort;
}
