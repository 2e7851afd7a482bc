// The common tail of every direct-issue path: application availability, the three authorization layers, the
// authority snapshot that detects a change mid-attempt, then the shared issuance core.
import { type ApplicationContext, checkApplication, type IssueRead, issueFromRead } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { ClaimView } from '@svc/token-core';
import { type CredentialType, checkLayer1, checkLayer2, type PrincipalKind, requiredMethod } from './layers';
import type { NativeDomain, WorkloadRow } from './ports';

/** A proven credential: what it is bound to, never what the request claims. */
export interface CredentialBinding {
  /** The application the credential was proven for (it applies to it). */
  app: ApplicationContext;
  type: CredentialType;
  credentialId: string;
  accountId: string;
  workloadId: string | null;
  /** The credential's workload, read with it (null: none, or gone). */
  workload: WorkloadRow | null;
  /** The issue read of its principal, taken in the same statement as the credential. */
  read: IssueRead;
}

/**
 * The spec's "immutable application/sector applicability must include the named application": a credential made
 * for one application applies to it alone, one made for a sector to every application of that sector. A credential
 * it does not apply to gets its path's opaque denial, as a wrong secret does.
 */
export function credentialAppliesTo(
  key: { applicationId: string | null; sectorId: string | null },
  app: Pick<ApplicationContext, 'id' | 'sectorId'>,
): boolean {
  return key.applicationId !== null ? key.applicationId === app.id : key.sectorId === app.sectorId;
}

export interface DirectIssueResult {
  claims: ClaimView;
  applicationAnchor: string;
  accessToken: string;
  refreshToken: string;
}

/** Looks up an application by its public anchor; unknown is ApplicationNotFound (404). */
export async function requireApplication(
  { ports }: NativeDomain,
  anchor: string,
): Promise<ApplicationContext> {
  const app = await ports.apps.get(anchor);
  if (!app) throw new ServiceError('ApplicationNotFound');
  return app;
}

export async function issueForCredential(
  { issuance }: NativeDomain,
  binding: CredentialBinding,
): Promise<DirectIssueResult> {
  const { app } = binding;
  checkApplication(app);
  const { workload } = binding;
  if (binding.workloadId && (!workload || workload.kind === 'ACCOUNT'))
    throw new ServiceError('Layer2Denied');
  const kind: PrincipalKind = workload ? workload.kind : 'ACCOUNT';
  const method = requiredMethod(binding.type, kind);
  checkLayer1(app, method);
  const principal = checkLayer2(binding, workload);
  // The session's insert is conditional on the authority version the read saw with the credential.
  const issued = await issueFromRead(
    issuance,
    { application: app, principal, authMethod: method, sourceCredentialId: binding.credentialId },
    binding.read,
  );
  return {
    claims: issued.claims,
    applicationAnchor: app.anchor,
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
  };
}
