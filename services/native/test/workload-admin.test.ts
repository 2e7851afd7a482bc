// The operator's workload and public-key commands, end to end: `pnpm admin agent regenerate`, `agent revoke` and
// `public-key revoke` (the real CLI process) take effect on direct issue and /errand over HTTP, so Layer2Denied,
// PublicKeyDirectDenied for a revoked key and a lapsed workload authority are reachable without SQL.
import { createWorkload, regenerateWorkload, revokeWorkload } from '@svc/provisioning';
import { postJson, provisionApp, uniqueName } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { decodeProtectedHeader } from 'jose';
import { admin, ok } from '../../../tools/admin/test/run-admin';
import { accessKeyFor, publicKeyFor, settledAccount, signAssertion, useNativeHost } from './helpers';

const n = useNativeHost();
const errand = (accessToken: string) => postJson(`${n.host.url}/errand`, { accessToken });

describe('pnpm admin agent regenerate / revoke', () => {
  it('regenerating ends the old generation’s sessions; revoking refuses issue with Layer2Denied', async () => {
    // Set-up through the library the CLI calls; the commands under test run as the real CLI process.
    const app = await provisionApp(n.infra, { methods: ['AGENT_ACCESS_KEY_DIRECT'] });
    const account = await settledAccount(n.infra);
    const key = await accessKeyFor(n.infra, app.anchor, account.id, 'AGENT');
    const agent = key.workloadId!;
    const issue = () =>
      postJson(`${n.host.url}/direct-issue/access-key`, {
        applicationAnchor: app.anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      });
    const first = await issue();
    expect(first.status).toBe(200);
    expect(decodeProtectedHeader(first.body.accessToken).typ).toBe(TYP.workloadAccess);
    expect((await errand(first.body.accessToken)).status).toBe(200);

    expect(await ok(['agent', 'regenerate', '--id', agent])).toEqual({ id: agent, generation: 2 });
    const old = await errand(first.body.accessToken);
    expect([old.status, old.text]).toEqual([401, '']);
    const second = await issue();
    expect(second.status).toBe(200);
    expect((await errand(second.body.accessToken)).status).toBe(200);

    expect(await ok(['agent', 'revoke', '--id', agent])).toEqual({ id: agent, status: 'REVOKED' });
    const refused = await issue();
    expect([refused.status, refused.body]).toEqual([403, { reason: 'Layer2Denied' }]);
    expect((await errand(second.body.accessToken)).status).toBe(401);
    // The wrong kind is not found (exit 1, the operator's message).
    const wrongKind = await admin(['automation', 'revoke', '--id', agent]);
    expect([wrongKind.code, wrongKind.json.error]).toEqual([1, 'automation not found']);
  }, 120_000); // three CLI processes

  it('revoking is idempotent, a revoked workload cannot be regenerated, kinds do not mix', async () => {
    const account = await settledAccount(n.infra);
    const { id } = await createWorkload(n.infra.provisioning, 'AUTOMATION', account.id, uniqueName('sync'));
    expect(await regenerateWorkload(n.infra.provisioning, 'AUTOMATION', id)).toEqual({ id, generation: 2 });
    expect(await revokeWorkload(n.infra.provisioning, 'AUTOMATION', id)).toEqual({ id, status: 'REVOKED' });
    expect(await revokeWorkload(n.infra.provisioning, 'AUTOMATION', id)).toEqual({ id, status: 'REVOKED' });
    await expect(regenerateWorkload(n.infra.provisioning, 'AUTOMATION', id)).rejects.toThrow(
      'the automation is revoked',
    );
    await expect(revokeWorkload(n.infra.provisioning, 'AGENT', id)).rejects.toThrow('agent not found');
    const row = await n.infra.db.workload.findUniqueOrThrow({ where: { id } });
    expect([row.status, row.generation]).toEqual(['REVOKED', 2]);
  });
});

describe('pnpm admin public-key revoke', () => {
  it('a revoked public key is PublicKeyDirectDenied', async () => {
    const app = await provisionApp(n.infra, { methods: ['PUBLIC_KEY_DIRECT'] });
    const account = await settledAccount(n.infra);
    const cred = await publicKeyFor(n.infra, app.anchor, account.id);
    const body = JSON.stringify({ applicationAnchor: app.anchor });
    const send = async () =>
      postJson(`${n.host.url}/direct-issue/public-key`, body, {
        authorization: `PublicKey ${await signAssertion(cred.key, cred.kid, body)}`,
      });
    expect((await send()).status).toBe(200);
    expect(await ok(['public-key', 'revoke', '--kid', cred.kid])).toEqual({ revoked: true });
    const res = await send();
    expect([res.status, res.body.reason]).toEqual([401, 'PublicKeyDirectDenied']);
  }, 60_000);
});
