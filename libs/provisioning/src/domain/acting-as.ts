// Binding provisioning's ports to another actor: the management host calls every operation with ports acting for
// the request's operator key, so each change's audit row names it.
import type { AuditContext } from '@svc/audit';
import type { ProvisioningPorts } from './ports';

/** The same ports acting for `context` (cheap: one object per request; the stores are shared). */
export function actingAs<P extends Pick<ProvisioningPorts, 'changes'>>(ports: P, context: AuditContext): P {
  return { ...ports, changes: ports.changes.as(context) };
}
