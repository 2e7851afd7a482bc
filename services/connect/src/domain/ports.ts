// The ports connect's domain needs: its own stores (inquiries, errands, the account page's rows and sessions) and
// the issuance core's ports. Stores in ../store implement them; deps.ts binds them once.
import type { AuditedChanges } from '@svc/audit';
import type { ClientAuthPorts } from '@svc/client-auth';
import type { Agreement, IssuancePorts } from '@svc/issuance';
import type { RateLimiter } from '@svc/platform';
import type { Challenge, NewPasskey, PasskeyOwner } from '@svc/signin';
import type { ClaimKey, TtlLayer } from '@svc/token-core';
import type { RealizeConstraint } from './email-match';

export type ReturnMethodType = 'CALLBACK' | 'STATUS_POLL' | 'REVEAL';

/** What /establish fixed for an inquiry, stored in its `constraints` column. */
export interface InquiryConstraints {
  returnMethods: ReturnMethodType[];
  callbackUrl?: string;
  realizeConstraints?: RealizeConstraint[];
  ttlLayers: TtlLayer[];
}

export type InquiryState = 'ESTABLISHED' | 'REALIZED' | 'REDEEMED';

export interface InquiryRow {
  id: string;
  applicationId: string;
  exposureKeyHash: string;
  hiddenKeyHash: string;
  confirmationKeyHash: string | null;
  confirmationKeyEnc: string | null;
  state: InquiryState;
  constraints: InquiryConstraints;
  accountId: string | null;
  authMethod: string | null;
  authTime: Date | null;
  authorityVersion: number | null;
  expiresAt: Date;
}

/** Inquiry rows: creation, lookup, and the conditional realize transition (redeeming happens with issuance). */
export interface InquiryStore {
  create(input: {
    applicationId: string;
    exposureKeyHash: string;
    hiddenKeyHash: string;
    constraints: InquiryConstraints;
    expiresAt: Date;
  }): Promise<void>;
  byExposureHash(exposureKeyHash: string): Promise<InquiryRow | undefined>;
  byId(id: string): Promise<InquiryRow | undefined>;
  /** ESTABLISHED -> REALIZED, once, while unexpired. False when another request got there first. */
  realize(
    id: string,
    input: {
      accountId: string;
      authMethod: string;
      authTime: Date;
      authorityVersion: number;
      confirmationKeyHash: string;
      confirmationKeyEnc: string;
    },
    now: Date,
  ): Promise<boolean>;
}

export interface ErrandRow {
  id: string;
  applicationId: string;
  accountId: string;
  /** PENDING or COMPLETED. */
  state: string;
  expiresAt: Date;
}

/** Errands as the errand pages need them: found by the hash of their key, completed once. */
export interface ErrandStore {
  byKeyHash(errandKeyHash: string): Promise<ErrandRow | undefined>;
  /** PENDING -> COMPLETED once, while unexpired. */
  complete(id: string, now: Date): Promise<boolean>;
}

export interface UsedApplication {
  id: string;
  anchor: string;
  names: Record<string, string>;
  defaultLocale: string;
  claimRequirements: unknown;
  sector: { id: string; name: string };
}

export type RemoveOutcome = 'removed' | 'last' | 'not_found';

/** A removal's outcome; once removed, the account's new authority version and the sessions it ended. */
export type RemoveResult =
  | { outcome: 'removed'; authorityVersion: number; revoked: string[] }
  | { outcome: Exclude<RemoveOutcome, 'removed'> };

export interface AccountSummary {
  id: string;
  email: string | null;
  status: string;
  locale: string | null;
}

export interface AccountPasskey {
  id: string;
  name: string | null;
  credentialId: string;
  transports: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** What the account page reads and writes of an account: its applications, consent, passkeys and sessions. */
export interface AccountPageStore {
  account(accountId: string): Promise<AccountSummary | null>;
  /**
   * The account, if ACTIVE, still under the authority version a session signed in under and (when given) still
   * holding the passkey it signed in with.
   */
  activeHolder(
    accountId: string,
    authorityVersion: number | undefined,
    passkeyId: string | undefined,
  ): Promise<boolean>;
  passkeyIdOf(credentialId: string): Promise<string | undefined>;
  setLocale(accountId: string, locale: string): Promise<void>;
  /** Applications the account has had a session with or decided a claim for, with their sectors. */
  usedApplications(accountId: string): Promise<UsedApplication[]>;
  grants(accountId: string): Promise<{ applicationId: string; claim: string; state: 'GRANTED' | 'DENIED' }[]>;
  setConsent(
    accountId: string,
    applicationId: string,
    decisions: Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>>,
  ): Promise<void>;
  passkeys(accountId: string): Promise<AccountPasskey[]>;
  /** Adds a verified passkey; `beforeCommit` tells the owner inside the transaction (a failure adds nothing). */
  addPasskey(
    accountId: string,
    passkey: NewPasskey,
    beforeCommit: (owner: PasskeyOwner) => Promise<void>,
  ): Promise<boolean>;
  renamePasskey(accountId: string, passkeyId: string, name: string): Promise<boolean>;
  /** Removes one of the account's passkeys unless it is the last, moving its authority version. */
  removePasskey(accountId: string, passkeyId: string, now: Date): Promise<RemoveResult>;
  /** Revokes the account's live sessions (human and workload) under every application of a sector. */
  revokeSectorSessions(accountId: string, sectorId: string, now: Date): Promise<string[]>;
}

export interface AccountSession {
  csrf: string;
  /** The account that signed in with its passkey, and when (ms). */
  accountId?: string;
  authTime?: number;
  /** The passkey (row id) it signed in with: removing that passkey elsewhere ends this session. */
  passkeyId?: string;
  /**
   * The account's authority version when it signed in (read with the credential): any change of authority since
   * (another passkey removed elsewhere, a passkey added by emailed code, a status change) ends this session.
   */
  authorityVersion?: number;
  /** A one-time message for the next page view. */
  notice?: { key: string; vars?: Record<string, string | number> };
}

/** Sign-ins to the account page, under host-issued ids only; signing in moves a session to a fresh id. */
export interface AccountSessionStore {
  create(init?: Omit<AccountSession, 'csrf'>): Promise<{ id: string; session: AccountSession }>;
  rotate(
    id: string,
    init: Omit<AccountSession, 'csrf'>,
  ): Promise<{ id: string; session: AccountSession } | undefined>;
  load(id: string): Promise<AccountSession | undefined>;
  save(id: string, session: AccountSession): Promise<void>;
  destroy(id: string): Promise<unknown>;
  putChallenge(id: string, challenge: Challenge): Promise<boolean>;
  takeChallenge(id: string): Promise<Challenge | undefined>;
}

/** What a person's change on the account page runs over: the same stores, bound to the change's transaction. */
export interface AccountChangePorts {
  accountPage: AccountPageStore;
  sectorSubjects: Pick<IssuancePorts['sectorSubjects'], 'rotateSectorSubject'>;
}

/** Everything connect's domain reaches beyond its own values, bound once in deps.ts. */
export interface ConnectPorts {
  inquiries: InquiryStore;
  errands: ErrandStore;
  accountPage: AccountPageStore;
  accountSessions: AccountSessionStore;
  /** The issuance core's stores (applications, accounts, agreements, sector subjects, session events...). */
  issuance: IssuancePorts;
  /** One published revision of the basic terms (read through a small in-process cache: revisions are immutable). */
  termsRevision(revision: number): Promise<Agreement | undefined>;
  /** The client-key store and the jti replay set /establish's client-auth JWTs are checked against. */
  clientAuth: ClientAuthPorts;
  /** Identifier resets per account (RESETS_PER_ACCOUNT per RESET_WINDOW_SECONDS). */
  resetLimit: RateLimiter;
  /**
   * A person's changes (passkey added or removed, identifier reset and the sessions it ends) with their audit row in
   * one transaction; the domain runs each `as(personActor(accountId, request))`.
   */
  accountChanges: AuditedChanges<AccountChangePorts>;
}
