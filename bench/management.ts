// The management host's scenarios for `pnpm bench`: reads (GET /v1/applications/{app}, an application's full view
// with its ETag) and writes (PATCH /v1/applications/{app}/claims: one provisioning change and its audit row, hash
// chained, in one transaction) per second, with an owner key whose lookup the host caches for a second.
import { cliActor } from '@svc/audit';
import { actingAs, createOperatorKey } from '@svc/provisioning';
import { provisionApp, type TestInfra } from '@svc/testkit';
import type autocannon from 'autocannon';
import type { Repeated } from './device';
import { type BenchHost, startHostProcess } from './hosts';

const REQUIREMENTS = ['REQUIRED', 'OPTIONAL'] as const;

export async function benchManagement(
  infra: TestInfra,
  hosts: BenchHost[],
  repeated: Repeated,
  processes: string,
): Promise<Record<string, unknown>> {
  const host = await startHostProcess('management', 24106, {
    WEB_CONCURRENCY: processes,
    // The per-key limit is a safety net, not what is measured.
    MANAGEMENT_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  hosts.push(host);
  const app = await provisionApp(infra, { methods: ['PASSKEY_USERNAMELESS'] });
  const { secret } = await createOperatorKey(
    actingAs(infra.provisioning, cliActor({ USER: 'bench' })),
    { name: 'bench', role: 'owner' },
    Date.now,
  );
  const auth = { authorization: `Bearer ${secret}` };
  const before = await infra.db.auditEvent.count();
  const results: Record<string, unknown> = {};
  results.managementRead = await repeated('management GET /v1/applications/{app}', () => ({
    url: `${host.url}/v1/applications/${app.anchor}`,
    headers: auth,
  }));
  let k = 0;
  results.managementWrite = await repeated('management PATCH .../claims (+ audit row)', () => ({
    url: `${host.url}/v1/applications/${app.anchor}/claims`,
    requests: [
      {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          body: JSON.stringify({ email: REQUIREMENTS[k++ % 2] }),
        }),
      },
    ],
  }));
  results.managementAuditRows = (await infra.db.auditEvent.count()) - before;
  console.log(`  (${results.managementAuditRows} audit rows written by the write runs)`);
  return results;
}
