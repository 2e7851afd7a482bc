// The ports of provisioning: one interface per store its rules read or write, and the records that cross them. The
// rules (domain/) take `ports` and values, never a database or Redis handle; the factories under store/ implement
// these interfaces, and each caller (the admin tool, testkit, scripts, bench) binds them once with
// createProvisioningPorts (`@svc/provisioning/stores`).
import type { AuditedChanges } from '@svc/audit';
import type { OutboxStore, ResolveHost, SubscriptionsStore } from '@svc/events';
import type { AccountsPort, AgreementsPort, EmailDomainPolicyKind, SectorSubjectsPort } from '@svc/issuance';
import type { SigningKeyStore } from '@svc/keyring';
import type { PrincipalKind } from '@svc/token-core';

// ---- Records ----

export type OrgStatus = 'ACTIVE' | 'DISABLED';
export type ApplicationStatus = 'ACTIVE' | 'SUSPENDED' | 'DISABLED';

/** An application as provisioning reads it. */
export interface ApplicationRecord {
  id: string;
  anchor: string;
  sectorId: string;
  status: ApplicationStatus;
  /** Locale to display name (JSON as stored). */
  names: unknown;
  defaultLocale: string;
  callbackDomains: string[];
  /** The stored claim requirements (JSON; normalizeRequirements reads it). */
  claimRequirements: unknown;
}

export interface NewApplication {
  anchor: string;
  sectorId: string;
  names: Record<string, string>;
  defaultLocale: string;
  callbackDomains: string[];
  claimRequirements: object;
}

export interface NewRule {
  applicationId: string;
  method: string;
  platformAppIds: bigint[];
  accessTtl: number | null;
  refreshTtl: number | null;
}

/** An application's rules, return rules and client keys (the operator's view), oldest first. */
export interface ApplicationParts {
  rules: {
    id: string;
    method: string;
    enabled: boolean;
    platformAppIds: bigint[];
    accessTtl: number | null;
    refreshTtl: number | null;
  }[];
  returnRules: { id: string; method: string; enabled: boolean }[];
  clientKeys: { kid: string; status: string }[];
}

export interface NewOidcClient {
  clientId: string;
  secretHash: string | null;
  authMethod: string;
  applicationId: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  responseTypes: string[];
  grantTypes: string[];
  webOrigins: string[];
  /** RFC 9126: /authorize only with a request_uri from /par. */
  requirePar: boolean;
  requireDpop: boolean;
  /** OIDC Back-Channel Logout 1.0: where logout tokens are posted (checked as event targets are); null for none. */
  backchannelLogoutUri: string | null;
  /** RFC 7591 client_name (dynamically registered clients). */
  clientName?: string | null;
  /** The initial access token that registered the client (POST /register). */
  registrationTokenId?: string | null;
}

/** An initial access token for dynamic client registration (only its hash is stored). */
export interface RegistrationTokenRecord {
  id: string;
  applicationId: string;
  usesLeft: number;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
}

/** Initial access tokens (POST /register on the OIDC host) and the registrations they pay for. */
export interface RegistrationTokensStore {
  insert(token: {
    tokenHash: string;
    applicationId: string;
    usesLeft: number;
    expiresAt: Date;
  }): Promise<string>;
  findByHash(tokenHash: string): Promise<RegistrationTokenRecord | undefined>;
  /**
   * Spends one use of token `id` when it has one left, is not revoked and has not expired at `now`: one
   * conditional update, so concurrent registrations never spend more uses than the token has (run it in the
   * change that inserts the client). False when no use was left.
   */
  spend(id: string, now: Date): Promise<boolean>;
  /** Oldest first; one application's when `applicationId` is given. */
  list(applicationId: string | undefined): Promise<RegistrationTokenRecord[]>;
  /** Marks the token revoked at `now`; false when there is no such token or it was revoked before. */
  revoke(id: string, now: Date): Promise<boolean>;
}

export type AccountStatus = 'ACTIVE' | 'DISABLED' | 'DELETED';
export type WorkloadKind = 'AGENT' | 'AUTOMATION';

export interface NewAccount {
  email: string;
  givenName: string | null;
  familyName: string | null;
  picture: string | null;
  pictureAnimated: string | null;
}

/** An account as provisioning reads it (whether it exists, and its standing). */
export interface AccountRecord {
  id: string;
  email: string | null;
  status: AccountStatus;
}

/** An agent or automation as provisioning reads it. */
export interface WorkloadRecord {
  id: string;
  /** AGENT or AUTOMATION (an ACCOUNT kind is no workload: the rules check the kind they asked for). */
  kind: PrincipalKind;
  ownerAccountId: string;
  name: string;
  status: 'ACTIVE' | 'REVOKED';
  generation: number;
}

/** Where a credential applies and whose it is: exactly one of applicationId and sectorId is set. */
export interface CredentialOwner {
  applicationId: string | null;
  sectorId: string | null;
  accountId: string;
  workloadId: string | null;
}

/** An OIDC client as an operator may see it: every setting, never the secret or its hash. */
export interface OidcClientRecord {
  clientId: string;
  applicationId: string;
  authMethod: string;
  status: 'ACTIVE' | 'REVOKED';
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  responseTypes: string[];
  grantTypes: string[];
  webOrigins: string[];
  requirePar: boolean;
  requireDpop: boolean;
  backchannelLogoutUri: string | null;
  clientName: string | null;
  createdAt: Date;
}

/** What a change of an OIDC client writes (anything left out is kept). */
export interface OidcClientChange {
  secretHash?: string | null;
  status?: 'REVOKED';
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  responseTypes?: string[];
  grantTypes?: string[];
  webOrigins?: string[];
  requirePar?: boolean;
  requireDpop?: boolean;
  backchannelLogoutUri?: string | null;
}

export interface OrganizationRow {
  id: string;
  name: string;
  status: OrgStatus;
  createdAt: Date;
}

export interface SectorRow extends OrganizationRow {
  organizationId: string;
}

export interface ApplicationRow {
  anchor: string;
  status: ApplicationStatus;
  sectorId: string;
  names: unknown;
  createdAt: Date;
}

/** An organization with its sectors, oldest first. */
export interface OrganizationView extends OrganizationRow {
  sectors: { id: string; name: string; status: OrgStatus }[];
}

/** A sector with its applications, oldest first. */
export interface SectorView extends SectorRow {
  applications: { anchor: string; status: ApplicationStatus }[];
}

/** An account's profile and status, never a credential. */
export interface AccountView {
  id: string;
  email: string | null;
  emailVerified: boolean;
  givenName: string | null;
  familyName: string | null;
  status: AccountStatus;
  ssoAuthority: string | null;
  locale: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A passkey's label and dates: no credential id, public key, counter or user handle. */
export interface PasskeyLabel {
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A signing key's lifecycle: never the sealed private key, its KEK id or the public JWK. */
export interface SigningKeyView {
  kid: string;
  scope: string;
  applicationId: string | null;
  status: string;
  createdAt: Date;
  activatesAt: Date | null;
  activatedAt: Date | null;
  retiredAt: Date | null;
  publishUntil: Date | null;
  revokedAt: Date | null;
}

export type SessionStatus = 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';

/** A session as an operator lists it. */
export interface SessionRecord {
  id: string;
  status: SessionStatus;
  protocol: 'APPLICATION' | 'OIDC';
  authMethod: string;
  actorSubject: string | null;
  currentVersion: number;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** One secret sealed under the key-encryption key. */
export interface SealedRow {
  id: string;
  /** The additional data the value is bound to (a signing key's kid, an inquiry's id). */
  aad: string;
  sealed: string;
}

/** A published basic-terms revision as stored. */
export interface StoredRevision {
  revision: number;
  acceptanceEpoch: number;
  body: unknown;
}

/** The basic-terms revisions, seen from inside the publishing lock. */
export interface TermsRevisions {
  newest(): Promise<StoredRevision | undefined>;
  insert(revision: StoredRevision & { body: object }): Promise<void>;
}

// ---- Ports ----

/**
 * The tenancy tree: organizations, sectors and applications with their rules, claim requirements, client keys and
 * OIDC client registrations. It never decides: the rules check the operator's input and ask it to write.
 */
export interface TenancyStore {
  insertOrganization(name: string): Promise<string>;
  organizationExists(id: string): Promise<boolean>;
  setOrganizationStatus(id: string, status: OrgStatus): Promise<void>;
  insertSector(organizationId: string, name: string): Promise<string>;
  sectorExists(id: string): Promise<boolean>;
  setSectorStatus(id: string, status: OrgStatus): Promise<void>;
  findApplication(anchor: string): Promise<ApplicationRecord | undefined>;
  /** The new application's id; undefined when the anchor is taken (checked first, and by the unique index). */
  insertApplication(app: NewApplication): Promise<string | undefined>;
  setApplicationStatus(id: string, status: ApplicationStatus): Promise<void>;
  insertRule(rule: NewRule): Promise<string>;
  insertReturnRule(applicationId: string, method: string): Promise<string>;
  /** Deletes the application's authentication rule `id`; false when the application has no such rule. */
  deleteRule(applicationId: string, id: string): Promise<boolean>;
  /** Deletes the application's return rule `id`; false when the application has no such return rule. */
  deleteReturnRule(applicationId: string, id: string): Promise<boolean>;
  /** Which kind of rule of the application `id` is, if any. */
  ruleKind(applicationId: string, id: string): Promise<'rule' | 'return rule' | undefined>;
  /** Whether the application has an enabled rule for `method`. */
  hasEnabledRule(applicationId: string, method: 'OIDC'): Promise<boolean>;
  /**
   * Read-modify-write of the application's claim requirements under a row lock, so two operators changing
   * different claims both win: `change` gets the stored value and returns the one to write.
   */
  changeClaimRequirements<T extends object>(
    applicationId: string,
    change: (stored: unknown) => T,
  ): Promise<T>;
  insertClientKey(key: { kid: string; applicationId: string; jwk: object }): Promise<void>;
  readApplicationParts(applicationId: string): Promise<ApplicationParts>;
  insertOidcClient(client: NewOidcClient): Promise<void>;
}

/**
 * Principals and their credentials: accounts (with claim grants and SSO links), agents and automations, access keys
 * and public keys, and the email-domain policies. It never decides.
 */
export interface PrincipalsStore {
  /** The new account's id; undefined when the email is taken (checked first, and by the unique index). */
  insertAccount(account: NewAccount): Promise<string | undefined>;
  findAccount(id: string): Promise<AccountRecord | undefined>;
  /** A status change also moves the account's authority version, so its sessions see it on their next refresh. */
  setAccountStatus(id: string, status: AccountStatus): Promise<void>;
  /**
   * Links the account to the SSO authority that governs it, moving its authority version when the authority
   * changes; false when there is no such account.
   */
  setSsoAuthority(accountId: string, authority: string): Promise<boolean>;
  putClaimGrant(grant: {
    accountId: string;
    applicationId: string;
    claim: string;
    state: 'GRANTED' | 'DENIED';
  }): Promise<void>;
  putEmailDomainPolicy(
    domain: string,
    data: { policy: EmailDomainPolicyKind; ssoAuthority: string | null },
  ): Promise<void>;
  insertWorkload(workload: { kind: WorkloadKind; ownerAccountId: string; name: string }): Promise<string>;
  findWorkload(id: string): Promise<WorkloadRecord | undefined>;
  /** Idempotent: an already revoked workload stays as it is. */
  revokeWorkload(id: string): Promise<void>;
  /** The active workload's next generation; undefined when it is revoked. */
  nextWorkloadGeneration(id: string): Promise<number | undefined>;
  insertAccessKey(key: CredentialOwner & { identifier: string; secretHash: string }): Promise<void>;
  insertPublicKey(key: CredentialOwner & { kid: string; jwk: object }): Promise<void>;
  /**
   * Revokes an access key (by identifier) or a public key (by kid); false when there is none. Idempotent: revoking
   * twice keeps the first revocation time.
   */
  revokeCredential(which: { accessKey: string } | { publicKey: string }, at: Date): Promise<boolean>;
}

/**
 * Registered OIDC clients as operators change them: reads never select the secret hash, and every change applies to
 * an ACTIVE client only, under its row lock, so a deleted client stays deleted.
 */
export interface OidcClientsStore {
  read(clientId: string): Promise<OidcClientRecord | null>;
  /**
   * Locks the ACTIVE client `clientId`, asks `change` (which may throw, changing nothing) what to write, writes it
   * and returns the client as it now is; undefined when no ACTIVE client has this id.
   */
  changeActive(
    clientId: string,
    change: (current: OidcClientRecord) => OidcClientChange,
  ): Promise<OidcClientRecord | undefined>;
}

/** The operator's lists (`org list`, `sector list`, `app list`, `oidc-client list`): oldest first, no secret. */
export interface ListingStore {
  organizations(): Promise<OrganizationRow[]>;
  sectors(organizationId: string | undefined): Promise<SectorRow[]>;
  applications(sectorId: string | undefined): Promise<ApplicationRow[]>;
  oidcClients(applicationId: string | undefined): Promise<OidcClientRecord[]>;
  /** Anchors of the given application ids (to name each row's application). */
  anchors(ids: string[]): Promise<Map<string, string>>;
}

/** The operator's show views and `keys list`: columns one by one, so a secret added later never shows. */
export interface InspectStore {
  organization(id: string): Promise<OrganizationView | null>;
  sector(id: string): Promise<SectorView | null>;
  accountByEmail(email: string): Promise<AccountView | null>;
  passkeyLabels(accountId: string): Promise<PasskeyLabel[]>;
  signingKeys(filter: { applicationId?: string; oidc?: boolean }): Promise<SigningKeyView[]>;
}

/** Sessions as operators see them: one subject's sessions in an application, and the suspend/resume move. */
export interface SessionsStore {
  /** An account's sessions in an application, newest first, at most `limit`. */
  list(applicationId: string, accountId: string, limit: number): Promise<SessionRecord[]>;
  /**
   * One conditional write: the session moves from `from` to `to` only if it is still `from` and unexpired at `now`
   * (a rotation or revocation racing it wins or loses whole). False when it did not move.
   */
  moveStatus(
    sid: string,
    move: { from: 'ACTIVE' | 'SUSPENDED'; to: 'ACTIVE' | 'SUSPENDED' },
    now: Date,
  ): Promise<boolean>;
  status(sid: string): Promise<{ status: SessionStatus; expiresAt: Date } | undefined>;
}

/**
 * The secrets sealed under the key-encryption key: signing keys' private halves (which record their KEK) and
 * inquiries' confirmation keys (which do not). Pages by id; each rewrite is conditional on the ciphertext read.
 */
export interface SealedSecretsStore {
  /** Signing keys whose recorded KEK is not `kekId`, after `afterId`, at most `limit`, in id order. */
  signingKeysNotUnder(kekId: string, afterId: string, limit: number): Promise<SealedRow[]>;
  /** Replaces one signing key's sealed private half if it is still `row.sealed`; true when it did. */
  replaceSigningKeySeal(row: SealedRow, sealed: string, kekId: string): Promise<boolean>;
  /** Inquiries holding a sealed confirmation key, after `afterId`, at most `limit`, in id order. */
  confirmationKeys(afterId: string, limit: number): Promise<SealedRow[]>;
  /** Replaces one inquiry's sealed confirmation key if it is still `row.sealed`; true when it did. */
  replaceConfirmationKeySeal(row: SealedRow, sealed: string): Promise<boolean>;
}

/** Basic-terms revisions as operators publish them. */
export interface TermsStore {
  /** Runs `work` in one transaction holding the basic-terms lock, so two publishers never take the same revision. */
  withLock<T>(work: (revisions: TermsRevisions) => Promise<T>): Promise<T>;
}

/** Tells every host's key ring that a scope's keys changed (Redis pub/sub). */
export interface KeyChangeNotices {
  publish(scopeId: string): Promise<void>;
}

/** Every store provisioning's rules use; a rule takes the few it needs (`Uses<'tenancy' | ...>`). */
/** An operator key of the management API as stored: never the secret, only its hash. */
export interface OperatorKeyRecord {
  id: string;
  name: string;
  role: OperatorRole;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export type OperatorRole = 'reader' | 'editor' | 'owner';

export interface OperatorKeysStore {
  create(key: {
    name: string;
    role: OperatorRole;
    lookup: string;
    secretHash: string;
    expiresAt: Date | null;
  }): Promise<OperatorKeyRecord>;
  /** Every key, oldest first. */
  list(): Promise<OperatorKeyRecord[]>;
  /** Sets revokedAt once: `missing` when no such key, `already` when it was revoked before. */
  revoke(id: string, at: Date): Promise<'revoked' | 'already' | 'missing'>;
  /** The key whose lookup prefix this is, with its secret hash (for a constant-time comparison). */
  byLookup(lookup: string): Promise<(OperatorKeyRecord & { secretHash: string }) | undefined>;
}

export interface ProvisioningPorts {
  tenancy: TenancyStore;
  operatorKeys: OperatorKeysStore;
  /** The signing keys (libs/keyring's store): the lifecycle steps of `keyLifecycle` run over it. */
  signingKeys: SigningKeyStore;
  principals: PrincipalsStore;
  /** The issuance core's accounts store: the claim grants an account holds under an application. */
  accounts: Pick<AccountsPort, 'loadGrants'>;
  /** The issuance core's agreements store: the current basic terms and an account's receipt. */
  agreements: Pick<AgreementsPort, 'currentTerms' | 'recordReceipt'>;
  oidcClients: OidcClientsStore;
  registrationTokens: RegistrationTokensStore;
  listing: ListingStore;
  inspect: InspectStore;
  sessions: SessionsStore;
  /** The issuance core's sector subjects: whose a pairwise subject is. */
  sectorSubjects: Pick<SectorSubjectsPort, 'findBySubject'>;
  sealedSecrets: SealedSecretsStore;
  terms: TermsStore;
  /** Event subscriptions and the outbox (libs/events' stores), and the resolver the target check asks. */
  events: {
    subscriptions: SubscriptionsStore;
    outbox: Pick<OutboxStore, 'list' | 'redeliver'>;
    resolveHost: ResolveHost;
  };
  /**
   * Present when the caller binds a Redis connection for it: a key rotation or revocation then tells the hosts at
   * once. The admin tool leaves it out and announces the change itself (with a warning when Redis is down).
   */
  keyChanges?: KeyChangeNotices;
  /**
   * Every change runs through here: `ports.changes.run(async (tx, audit) => {...})` runs the work over ports bound
   * to one transaction and appends what it `audit.record`s to the audit trail before commit, for the actor these
   * ports were bound with (`createProvisioningPorts(db, { actor })`, or `actingAs(ports, context)` per request).
   * If the row cannot be written the change rolls back: AuditUnavailableError.
   */
  changes: AuditedChanges<ProvisioningPorts>;
}

/** The ports one rule takes. */
export type Uses<K extends keyof ProvisioningPorts> = Pick<ProvisioningPorts, K>;
