// The ports of provisioning: one interface per store its rules read or write, and the records that cross them. The
// rules (domain/) take `ports` and values, never a database or Redis handle; the factories under store/ implement
// these interfaces, and each caller (the admin tool, testkit, scripts, bench) binds them once with
// createProvisioningPorts (`@svc/provisioning/stores`).
import type { AccountsPort, AgreementsPort, EmailDomainPolicyKind } from '@svc/issuance';
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

/** Every store provisioning's rules use; a rule takes the few it needs (`Uses<'tenancy' | ...>`). */
export interface ProvisioningPorts {
  tenancy: TenancyStore;
  /** The signing keys (libs/keyring's store): the lifecycle steps of `keyLifecycle` run over it. */
  signingKeys: SigningKeyStore;
  principals: PrincipalsStore;
  /** The issuance core's accounts store: the claim grants an account holds under an application. */
  accounts: Pick<AccountsPort, 'loadGrants'>;
  /** The issuance core's agreements store: the current basic terms and an account's receipt. */
  agreements: Pick<AgreementsPort, 'currentTerms' | 'recordReceipt'>;
}

/** The ports one rule takes. */
export type Uses<K extends keyof ProvisioningPorts> = Pick<ProvisioningPorts, K>;
