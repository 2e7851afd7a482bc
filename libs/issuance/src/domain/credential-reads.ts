// The credentials a host's direct issue accepts (native's access keys and public keys), each read by the issuance
// store in one statement with its workload and its principal's issue read (store/credential-reads.ts), so a direct
// issue reads once and no host embeds the issuance core's SQL (#37).
import type { JWK } from 'jose';
import type { IssueRead } from './ports';
import type { CurrentTerms } from './terms';

export interface AccessKeyRow {
  id: string;
  secretHash: string;
  /** Applicability: exactly one of the two is set (one application, or every application of one sector). */
  applicationId: string | null;
  sectorId: string | null;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
}

export interface PublicKeyRow {
  id: string;
  jwk: JWK;
  /** Applicability, as on AccessKeyRow. */
  applicationId: string | null;
  sectorId: string | null;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
}

export interface WorkloadRow {
  id: string;
  kind: 'ACCOUNT' | 'AGENT' | 'AUTOMATION';
  ownerAccountId: string;
  status: 'ACTIVE' | 'REVOKED';
  generation: number;
}

/** A credential with its workload (null when it has none or the workload is gone) and its principal's issue read. */
export interface CredentialForIssue<Key> {
  key: Key;
  workload: WorkloadRow | null;
  read: IssueRead;
}

/** Where the issue read is taken: the application named in the request, its sector and the current terms. */
export interface CredentialReadScope {
  applicationId: string;
  sectorId: string;
  terms: CurrentTerms | undefined;
}

/** The credentials direct issue accepts, each read with its workload and its principal's issue read (one read). */
export interface CredentialReads {
  findAccessKeyForIssue(
    identifier: string,
    scope: CredentialReadScope,
  ): Promise<CredentialForIssue<AccessKeyRow> | null>;
  findPublicKeyForIssue(
    kid: string,
    scope: CredentialReadScope,
  ): Promise<CredentialForIssue<PublicKeyRow> | null>;
}
