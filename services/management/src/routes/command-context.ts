// The context a command runs in over HTTP: the host's long-lived connections, with the provisioning ports acting for
// the request's operator key (so each change's audit row names it), and the announcements that tell running hosts.
import { operatorKeyActor } from '@svc/audit';
import { actingAs } from '@svc/provisioning';
import type { AdminContext } from '@svc/provisioning/commands';
import type { ManagementDeps } from '../deps';
import type { Operator } from './operator-auth';

const UNANNOUNCED =
  'the change is saved, but Redis was unreachable, so running hosts were not notified; they pick it up when their cache expires';

export function contextFor(deps: ManagementDeps, operator: Operator): AdminContext {
  const ports = actingAs(
    deps.provisioning,
    operatorKeyActor(operator.key, {
      requestId: operator.requestId,
      sourceAddress: operator.sourceAddress,
      userAgent: operator.userAgent ?? null,
    }),
  );
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
