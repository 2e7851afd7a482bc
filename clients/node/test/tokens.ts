// Token fixtures for the package's tests: sessions issued through the real issuance core (account and workload),
// and the JWK Set and signer of an application, for forging and minting by hand.
import { issueSession, type Principal } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { provisionAccount, provisionApp, type TestInfra } from '@svc/testkit';

export const kidOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).kid;

export async function issueFor(infra: TestInfra, anchor: string, principal: Principal) {
  const application = await createApplicationsStore(infra.db).loadApplication({ anchor });
  if (!application) throw new Error(`no application ${anchor}`);
  return issueSession(infra.issuance, { application, principal, authMethod: 'ACCESS_KEY_DIRECT' });
}

/** A fresh application, an account, and an account session plus a workload session under it. */
export async function appWithSessions(infra: TestInfra) {
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const account = await provisionAccount(infra);
  const human = await issueFor(infra, app.anchor, { kind: 'ACCOUNT', accountId: account.id });
  const workload = await infra.db.workload.create({
    data: { kind: 'AGENT', ownerAccountId: account.id, name: 'agent' },
  });
  const agent = await issueFor(infra, app.anchor, {
    kind: 'AGENT',
    accountId: account.id,
    workloadId: workload.id,
    workloadGeneration: workload.generation,
  });
  return { app, account, human, agent };
}
