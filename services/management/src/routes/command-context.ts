// The context a command runs in over HTTP: the host's long-lived connections, with the provisioning ports acting for
// the request's operator key (so each change's audit row names it), and the announcements that tell running hosts.
// A change runs over the ports of its one transaction, and announces only once that has committed.
import { type AuditContext, operatorKeyActor } from '@svc/audit';
import { actingAs } from '@svc/provisioning';
import type { AdminContext } from '@svc/provisioning/commands';
import type { ManagementDeps } from '../deps';
import type { ChangePorts } from '../domain/ports';
import type { Operator } from './operator-auth';

const UNANNOUNCED =
  'the change is saved, but Redis was unreachable, so running hosts were not notified; they pick it up when their cache expires';

/** Who a request's changes are made by, for their audit rows. */
export function operatorContext(operator: Operator): AuditContext {
  return operatorKeyActor(operator.key, {
    requestId: operator.requestId,
    sourceAddress: operator.sourceAddress,
    userAgent: operator.userAgent ?? null,
  });
}

/** A read's context (a change runs in changeContext instead). */
export function contextFor(deps: ManagementDeps, operator: Operator): AdminContext {
  const ports = actingAs(deps.provisioning, operatorContext(operator));
  return {
    clock: deps.clock,
    provisioning: () => ports,
    audit: () => ({ auditTrail: deps.auditTrail }),
    kek: () => deps.kek,
    connectUrl: () => deps.config.urls.connect,
    keyRotation: () => deps.config.keyRotation,
    eventTargets: () => ({
      production: deps.config.production,
      allowPrivate: deps.config.allowPrivateTargets,
    }),
    announceKeyChange: async (scopeId) => ((await deps.announce('key', scopeId)) ? undefined : UNANNOUNCED),
    announceSessionChange: async (sid) => ((await deps.announce('session', sid)) ? undefined : UNANNOUNCED),
    // The connections are the host's, closed when it stops.
    close: async () => undefined,
  };
}

/**
 * A change's context: the provisioning ports of its transaction (deps.changes, already acting for the operator key),
 * and announcements sent once it has committed, so that no host reloads before the change is visible. An
 * announcement that fails then is logged (hosts pick the change up when their cache expires); the answer, already
 * stored with the change, carries no warning.
 */
export function changeContext(deps: ManagementDeps, operator: Operator, ports: ChangePorts): AdminContext {
  const later = async (channel: 'key' | 'session', id: string) => {
    ports.afterCommit(async () => {
      if (!(await deps.announce(channel, id))) deps.logger.warn({ channel, id }, UNANNOUNCED);
    });
    return undefined;
  };
  return {
    ...contextFor(deps, operator),
    provisioning: () => ports.provisioning,
    announceKeyChange: (scopeId) => later('key', scopeId),
    announceSessionChange: (sid) => later('session', sid),
  };
}
