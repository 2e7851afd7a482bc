// `org list`, `sector list`, `app list`, `app show` and `oidc-client list` through runCli against the real
// database: unique names, filters, unknown filters refused, and never a client secret or its hash in the output.
import { createHash } from 'node:crypto';
import { uniqueName, useInfra } from '@svc/testkit';
import { admin, ok, tenancyFixture } from './run-admin';

useInfra();

const fixture = () => tenancyFixture('List', 'Listed');

describe('admin list commands', () => {
  it('lists organizations, sectors of one organization and applications of one sector', async () => {
    const f = await fixture();
    const orgs = (await ok(['org', 'list'])).organizations;
    expect(orgs).toContainEqual(expect.objectContaining({ id: f.org, name: f.orgName, status: 'ACTIVE' }));

    const sectors = (await ok(['sector', 'list', '--org', f.org])).sectors;
    expect(sectors.map((s: { id: string }) => s.id)).toEqual([f.sector]);
    expect(sectors[0]).toMatchObject({ organizationId: f.org, status: 'ACTIVE' });

    const apps = (await ok(['app', 'list', '--sector', f.sector])).applications;
    expect(apps).toEqual([
      expect.objectContaining({ applicationAnchor: f.anchor, status: 'ACTIVE', sectorId: f.sector }),
    ]);
    expect((await ok(['app', 'list'])).applications).toContainEqual(
      expect.objectContaining({ applicationAnchor: f.anchor }),
    );
  });

  it('refuses an unknown or malformed filter instead of printing an empty list', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await admin(['sector', 'list', '--org', unknown])).toMatchObject({
      code: 1,
      json: { error: 'organization not found' },
    });
    expect((await admin(['app', 'list', '--sector', unknown])).json).toEqual({ error: 'sector not found' });
    expect((await admin(['app', 'list', '--sector', 'nope'])).json.error).toMatch(/must be an id/);
    expect((await admin(['oidc-client', 'list', '--app', uniqueName('absent')])).json).toEqual({
      error: 'application not found',
    });
  });

  it('shows an application as {application} with rules, return rules, claims and client keys', async () => {
    const f = await fixture();
    const rule = (await ok(['app', 'add-rule', '--app', f.anchor, '--method', 'OIDC'])).ruleId;
    const ret = (await ok(['app', 'add-return-rule', '--app', f.anchor, '--method', 'CALLBACK'])).ruleId;
    const shown = await ok(['app', 'show', '--app', f.anchor]);
    expect(Object.keys(shown)).toEqual(['application']);
    expect(shown.application).toMatchObject({
      applicationAnchor: f.anchor,
      status: 'ACTIVE',
      rules: [expect.objectContaining({ ruleId: rule, method: 'OIDC' })],
      returnRules: [expect.objectContaining({ ruleId: ret, method: 'CALLBACK' })],
      clientKeys: [],
      claims: expect.any(Object),
    });
  });

  it('lists OIDC clients of one application without the secret or its hash', async () => {
    const f = await fixture();
    await ok(['app', 'add-rule', '--app', f.anchor, '--method', 'OIDC']);
    const made = await ok([
      'oidc-client',
      'create',
      '--app',
      f.anchor,
      '--redirect-uri',
      'https://a.example/cb',
    ]);
    const r = await admin(['oidc-client', 'list', '--app', f.anchor]);
    expect(r.code).toBe(0);
    expect(r.json.clients).toEqual([
      expect.objectContaining({
        clientId: made.clientId,
        applicationAnchor: f.anchor,
        authMethod: 'client_secret_basic',
        redirectUris: ['https://a.example/cb'],
        status: 'ACTIVE',
      }),
    ]);
    expect(r.stdout).not.toContain(made.clientSecret);
    expect(r.stdout).not.toContain(createHash('sha256').update(made.clientSecret).digest('hex'));
    expect(r.stdout).not.toMatch(/secretHash|secret_hash|clientSecret/);
    const all = await admin(['oidc-client', 'list']);
    expect(all.json.clients).toContainEqual(expect.objectContaining({ clientId: made.clientId }));
    expect(all.stdout).not.toMatch(/secretHash|secret_hash/);
  });
});
