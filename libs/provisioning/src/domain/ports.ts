// The ports of provisioning: one interface per store its rules read or write, and the records that cross them. The
// rules (domain/) take `ports` and values, never a database or Redis handle; the factories under store/ implement
// these interfaces, and each caller (the admin tool, testkit, scripts, bench) binds them once with
// createProvisioningPorts (`@svc/provisioning/stores`).
import type { SigningKeyStore } from '@svc/keyring';

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

/** Every store provisioning's rules use; a rule takes the few it needs (`Uses<'tenancy' | ...>`). */
export interface ProvisioningPorts {
  tenancy: TenancyStore;
  /** The signing keys (libs/keyring's store): the lifecycle steps of `keyLifecycle` run over it. */
  signingKeys: SigningKeyStore;
}

/** The ports one rule takes. */
export type Uses<K extends keyof ProvisioningPorts> = Pick<ProvisioningPorts, K>;
