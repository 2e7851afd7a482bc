// The common tail of every direct-issue path: application availability, the three authorization layers, the
// authority snapshot that detects a change mid-attempt, then the shared issuance core.
import { type ApplicationContext, checkApplication, type IssueRead, issueSession } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { ClaimView } from '@svc/token-core';
import type { NativeDeps } from '../deps';
import type { CredentialStore, WorkloadRow } from '../store/credentials';
import { type CredentialType, checkLayer1, checkLayer2, type PrincipalKind, requiredMethod } from './layers';

/** A proven credential: what it is bound to, never what the request claims. */
export interface CredentialBinding {
  type: CredentialType;
  credentialId: string;
  accountId: string;
  workloadId: string | null;
  /** The account's authority version read with the credential, when the lookup had it. */
  authorityVersion?: number;
  /** The credential's workload, when the lookup read it (null: none, or gone). */
  workload?: WorkloadRow | null;
  /** The issue read, when the lookup took it in the same statement. */
  read?: IssueRead;
}

export interface DirectIssueResult {
  claims: ClaimView;
  applicationAnchor: string;
  accessToken: string;
  refreshToken: string;
}

/** Looks up an application by its public anchor; unknown is ApplicationNotFound (404). */
export async function requireApplication(deps: NativeDeps, anchor: string): Promise<ApplicationContext> {
  const app = await deps.apps.get(anchor);
  if (!app) throw new ServiceError('ApplicationNotFound', 404);
  return app;
}

export async function issueForCredential(
  deps: NativeDeps,
  store: CredentialStore,
  app: ApplicationContext,
  binding: CredentialBinding,
): Promise<DirectIssueResult> {
  checkApplication(app);
  const workload =
    binding.workload !== undefined
      ? binding.workload
      : binding.workloadId
        ? await store.findWorkload(binding.workloadId)
        : null;
  if (binding.workloadId && (!workload || workload.kind === 'ACCOUNT'))
    throw new ServiceError('Layer2Denied', 403);
  const kind: PrincipalKind = workload ? workload.kind : 'ACCOUNT';
  const method = requiredMethod(binding.type, kind);
  checkLayer1(app, method);
  const principal = checkLayer2(binding, workload);
  const authority = binding.authorityVersion ?? (await store.authorityVersion(binding.accountId));
  const issued = await issueSession(deps.issuance, {
    application: app,
    principal,
    authMethod: method,
    sourceCredentialId: binding.credentialId,
    expectedAuthorityVersion: authority,
    read: binding.read,
  });
  return {
    claims: issued.claims,
    applicationAnchor: app.anchor,
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
  };
}
