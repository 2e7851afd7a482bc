// Read-only view of one application for operators: status, names, rules, claims, client keys and published kids.
import { keyLifecycle } from '@svc/keyring';
import type { Clock } from '@svc/platform';
import { normalizeRequirements } from '@svc/token-core';
import type { Uses } from './ports';
import { appByAnchor } from './tenancy';

/** Platform app ids stay bigint; the caller decides how to print them (the admin CLI prints decimal strings). */
export async function describeApp(ports: Uses<'tenancy' | 'signingKeys'>, anchor: string, clock: Clock) {
  const app = await appByAnchor(ports, anchor);
  const [{ rules, returnRules, clientKeys }, kids] = await Promise.all([
    ports.tenancy.readApplicationParts(app.id),
    keyLifecycle.publishedKids(ports.signingKeys, app.id, new Date(clock())),
  ]);
  return {
    applicationAnchor: app.anchor,
    status: app.status,
    sectorId: app.sectorId,
    names: app.names,
    defaultLocale: app.defaultLocale,
    callbackDomains: app.callbackDomains,
    claims: normalizeRequirements(app.claimRequirements),
    rules: rules.map((r) => ({
      ruleId: r.id,
      method: r.method,
      enabled: r.enabled,
      platformAppIds: r.platformAppIds,
      accessTtl: r.accessTtl,
      refreshTtl: r.refreshTtl,
    })),
    returnRules: returnRules.map((r) => ({ ruleId: r.id, method: r.method, enabled: r.enabled })),
    clientKeys: clientKeys.map((k) => ({ kid: k.kid, status: k.status })),
    kids,
  };
}
