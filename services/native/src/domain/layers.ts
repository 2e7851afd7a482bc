// The authorization layers of direct issue, each one small check applied after the credential is proven.
//   Layer 1 (method): the application has an enabled authentication rule for the exact method selected by the
//     credential type and the credential-bound principal kind (spec table). Accepting one kind admits no other.
//   Layer 2 (standing): a workload-bound credential must name an ACTIVE agent or automation that is still
//     owned by the credential's account. (The account's own status is reported as AccountDisabled/Deleted.)
//   Layer 3 (return channels) governs how results of inquiries (CALLBACK, STATUS_POLL, REVEAL) and device
//     authorizations (DEVICE_CODE) are returned. Direct issue answers the proven credential holder in its own
//     response, so Layer 3 never refuses it and has no check here.
import type { ApplicationContext, Principal } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { WorkloadRow } from './ports';

export type CredentialType = 'ACCESS_KEY' | 'PUBLIC_KEY';
export type PrincipalKind = 'ACCOUNT' | 'AGENT' | 'AUTOMATION';

const METHODS: Record<CredentialType, Record<PrincipalKind, string>> = {
  ACCESS_KEY: {
    ACCOUNT: 'ACCESS_KEY_DIRECT',
    AGENT: 'AGENT_ACCESS_KEY_DIRECT',
    AUTOMATION: 'AUTOMATION_ACCESS_KEY_DIRECT',
  },
  PUBLIC_KEY: {
    ACCOUNT: 'PUBLIC_KEY_DIRECT',
    AGENT: 'AGENT_PUBLIC_KEY_DIRECT',
    AUTOMATION: 'AUTOMATION_PUBLIC_KEY_DIRECT',
  },
};

export const PLATFORM_TICKET_METHOD = 'PLATFORM_TICKET';

/** The exact authentication method a credential of this type, bound to this principal kind, needs. */
export function requiredMethod(type: CredentialType, kind: PrincipalKind): string {
  return METHODS[type][kind];
}

export function checkLayer1(app: ApplicationContext, method: string): void {
  if (!app.authRules.some((r) => r.method === method)) throw new ServiceError('Layer1Denied');
}

/** Layer 1 for platform tickets: an enabled PLATFORM_TICKET rule whose allow-list names the platform app id. */
export function checkPlatformLayer1(app: ApplicationContext, platformAppId: bigint): void {
  const allowed = app.authRules.some(
    (r) => r.method === PLATFORM_TICKET_METHOD && r.platformAppIds.some((id) => id === platformAppId),
  );
  if (!allowed) throw new ServiceError('Layer1Denied');
}

/**
 * Layer 2: the principal the credential is bound to, checked for standing. `workload` is the credential's
 * workload row (null when the credential has none).
 */
export function checkLayer2(
  binding: { accountId: string; workloadId: string | null },
  workload: WorkloadRow | null,
): Principal {
  if (!binding.workloadId) return { kind: 'ACCOUNT', accountId: binding.accountId };
  if (
    !workload ||
    workload.kind === 'ACCOUNT' ||
    workload.status !== 'ACTIVE' ||
    workload.ownerAccountId !== binding.accountId
  ) {
    throw new ServiceError('Layer2Denied');
  }
  return {
    kind: workload.kind,
    accountId: binding.accountId,
    workloadId: workload.id,
    workloadGeneration: workload.generation,
  };
}
