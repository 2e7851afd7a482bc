// `org show`, `sector show`, `account show`, `keys list`, `app remove-rule|remove-return-rule` and `--format table`
// through runCli against the real database: what they print, never a secret, and every bad input refused with a
// clear error that changes nothing.
import { randomBytes } from 'node:crypto';
import { uniqueName, useInfra } from '@svc/testkit';
import { admin, ok, tenancyFixture } from './run-admin';

const infra = useInfra();
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

const fixture = () => tenancyFixture('Show', 'Shown');

describe('org show and sector show', () => {
  it('show one organization with its sectors, and one sector with its applications', async () => {
    const f = await fixture();
    const org = await ok(['org', 'show', '--org', f.org]);
    expect(org).toEqual({
      organization: {
        id: f.org,
        name: f.orgName,
        status: 'ACTIVE',
        createdAt: expect.any(String),
        sectors: [expect.objectContaining({ id: f.sector, status: 'ACTIVE' })],
      },
    });
    const sector = await ok(['sector', 'show', '--sector', f.sector]);
    expect(sector.sector).toMatchObject({
      id: f.sector,
      organizationId: f.org,
      status: 'ACTIVE',
      applications: [{ applicationAnchor: f.anchor, status: 'ACTIVE' }],
    });
  });

  it('refuse an unknown or malformed id with exit 1 or 2 and one JSON error', async () => {
    expect(await admin(['org', 'show', '--org', UNKNOWN])).toMatchObject({
      code: 1,
      json: { error: 'organization not found' },
    });
    expect(await admin(['sector', 'show', '--sector', UNKNOWN])).toMatchObject({
      code: 1,
      json: { error: 'sector not found' },
    });
    const malformed = await admin(['org', 'show', '--org', 'acme']);
    expect(malformed.code).toBe(2);
    expect(malformed.json.error).toMatch(/--org must be an id/);
    expect((await admin(['sector', 'show'])).json).toEqual({ error: 'missing --sector' });
  });
});

describe('account show --email', () => {
  it('shows status, names, created and the passkeys by count and label, never a credential', async () => {
    const email = `${uniqueName('shown')}@example.com`;
    const id = (await ok(['account', 'create', '--email', email, '--given-name', 'Ada'])).id as string;
    // Two passkeys as the account page leaves them: one named, one never named.
    const credential = randomBytes(16).toString('base64url');
    const publicKey = randomBytes(32);
    await infra.db.passkey.createMany({
      data: [
        {
          credentialId: credential,
          accountId: id,
          publicKey,
          userHandle: 'uh1',
          name: 'Laptop',
          transports: [],
        },
        {
          credentialId: randomBytes(16).toString('base64url'),
          accountId: id,
          publicKey,
          userHandle: 'uh2',
          transports: [],
        },
      ],
    });
    // Lookups ignore the email's case, as accounts are stored lowercased.
    const r = await admin(['account', 'show', '--email', email.toUpperCase()]);
    expect(r.code).toBe(0);
    expect(r.json.account).toMatchObject({
      id,
      email,
      givenName: 'Ada',
      status: 'ACTIVE',
      createdAt: expect.any(String),
      passkeys: {
        count: 2,
        labels: [expect.objectContaining({ name: 'Laptop' }), expect.objectContaining({ name: null })],
      },
    });
    expect(r.stdout).not.toContain(credential);
    expect(r.stdout).not.toContain(publicKey.toString('base64'));
    expect(r.stdout).not.toMatch(/credentialId|publicKey|userHandle|counter/);
  });

  it('refuses an unknown or malformed email', async () => {
    expect(await admin(['account', 'show', '--email', `${uniqueName('nobody')}@example.com`])).toMatchObject({
      code: 1,
      json: { error: 'no account has this email' },
    });
    expect(await admin(['account', 'show', '--email', 'not-an-email'])).toMatchObject({
      code: 2,
      json: { error: '--email must be an email address' },
    });
  });
});

describe('keys list', () => {
  it("lists an application's keys with scope, status and dates, never key material", async () => {
    const f = await fixture();
    await ok(['keys', 'rotate', '--app', f.anchor]);
    const r = await admin(['keys', 'list', '--app', f.anchor]);
    expect(r.code).toBe(0);
    expect(r.json.keys.map((k: { status: string }) => k.status)).toEqual(['ACTIVE', 'NEXT']);
    expect(r.json.keys[0]).toEqual({
      kid: expect.any(String),
      scope: 'APPLICATION',
      applicationAnchor: f.anchor,
      status: 'ACTIVE',
      createdAt: expect.any(String),
      activatesAt: expect.any(String),
      activatedAt: expect.any(String),
      retiredAt: null,
      publishUntil: null,
      revokedAt: null,
    });
    expect(r.stdout).not.toMatch(/privateKey|private_key|kekId|publicJwk|"d"/);
    const stored = await infra.db.signingKey.findMany({
      where: { kid: { in: r.json.keys.map((k: { kid: string }) => k.kid) } },
    });
    for (const k of stored) expect(r.stdout).not.toContain(k.privateKeyEnc);
  });

  it('lists the platform ID-token keys with --oidc, and refuses --app with --oidc or an unknown app', async () => {
    const oidc = await ok(['keys', 'list', '--oidc']);
    for (const k of oidc.keys) expect(k).toMatchObject({ scope: 'OIDC', applicationAnchor: null });
    expect((await admin(['keys', 'list', '--oidc', '--app', 'some-app'])).json).toEqual({
      error: 'give --app or --oidc, not both',
    });
    expect(await admin(['keys', 'list', '--app', uniqueName('absent')])).toMatchObject({
      code: 1,
      json: { error: 'application not found' },
    });
  });
});

describe('app remove-rule and app remove-return-rule', () => {
  it('remove exactly the rule named, each verb its own kind; app show no longer lists it', async () => {
    const f = await fixture();
    const keep = (await ok(['app', 'add-rule', '--app', f.anchor, '--method', 'OIDC'])).ruleId;
    const rule = (await ok(['app', 'add-rule', '--app', f.anchor, '--method', 'ACCESS_KEY_DIRECT'])).ruleId;
    const ret = (await ok(['app', 'add-return-rule', '--app', f.anchor, '--method', 'CALLBACK'])).ruleId;
    expect(await ok(['app', 'remove-rule', '--app', f.anchor, '--rule', rule])).toEqual({
      ruleId: rule,
      removed: true,
    });
    expect(await ok(['app', 'remove-return-rule', '--app', f.anchor, '--rule', ret])).toEqual({
      ruleId: ret,
      removed: true,
    });
    const shown = (await ok(['app', 'show', '--app', f.anchor])).application;
    expect(shown.rules.map((r: { ruleId: string }) => r.ruleId)).toEqual([keep]);
    expect(shown.returnRules).toEqual([]);
  });

  it('refuse the wrong kind, another application, an unknown or malformed id, and change nothing', async () => {
    const f = await fixture();
    const other = await fixture();
    const rule = (await ok(['app', 'add-rule', '--app', f.anchor, '--method', 'OIDC'])).ruleId;
    const ret = (await ok(['app', 'add-return-rule', '--app', f.anchor, '--method', 'DEVICE_CODE'])).ruleId;
    const before = await ok(['app', 'show', '--app', f.anchor]);
    const refusals: [string[], number, RegExp][] = [
      [
        ['app', 'remove-rule', '--app', f.anchor, '--rule', ret],
        1,
        /is a return rule of .*app remove-return-rule/,
      ],
      [
        ['app', 'remove-return-rule', '--app', f.anchor, '--rule', rule],
        1,
        /is an authentication rule .*app remove-rule/,
      ],
      [['app', 'remove-rule', '--app', other.anchor, '--rule', rule], 1, /has no rule/],
      [['app', 'remove-rule', '--app', f.anchor, '--rule', UNKNOWN], 1, /has no rule .*app show/],
      [['app', 'remove-rule', '--app', uniqueName('absent'), '--rule', rule], 1, /^application not found$/],
      [['app', 'remove-rule', '--app', f.anchor, '--rule', 'OIDC'], 2, /--rule must be an id/],
      [['app', 'remove-rule', '--app', f.anchor], 2, /^missing --rule$/],
    ];
    for (const [args, code, error] of refusals) {
      const r = await admin(args);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(Object.keys(r.json)).toEqual(['error']);
      expect(r.json.error).toMatch(error);
    }
    expect(await ok(['app', 'show', '--app', f.anchor])).toEqual(before);
  });
});

describe('--format table', () => {
  it('lays the same result out for a person; JSON stays the default', async () => {
    const f = await fixture();
    const table = await tableRun(['app', 'list', '--sector', f.sector, '--format', 'table']);
    const [title, header, rule, row] = table.split('\n');
    expect(title).toBe('applications');
    expect(header).toMatch(/^applicationAnchor\s+status\s+sectorId\s+names\s+createdAt$/);
    expect(rule).toMatch(/^-+( +-+)+$/);
    expect(row).toContain(f.anchor);
    expect(row).toContain('en-US=Shown');
    // An object: FIELD/VALUE, and its lists of objects as their own grids.
    await ok(['app', 'add-rule', '--app', f.anchor, '--method', 'OIDC']);
    const shown = await tableRun(['app', 'show', '--format=table', '--app', f.anchor]);
    expect(shown).toMatch(/^application\nFIELD\s+VALUE\n/);
    expect(shown).toMatch(/\napplication\.rules\nruleId\s+method\s+enabled/);
    // An empty list is a dash in its row, as every empty cell.
    expect(shown).toMatch(/\nreturnRules +-\n/);
    expect((await ok(['app', 'list', '--sector', f.sector])).applications).toHaveLength(1);
  });

  it('refuses an unknown format, and says a refusal in words rather than JSON', async () => {
    const { runCli } = await import('../src/cli');
    const never = () => {
      throw new Error('no context for a usage error');
    };
    expect(await runCli(['org', 'list', '--format', 'yaml'], process.env, never)).toMatchObject({
      code: 2,
      stdout: '{"error":"--format must be one of json, table"}',
    });
    const refused = await tableRunRaw(['org', 'show', '--org', UNKNOWN, '--format', 'table']);
    expect(refused).toMatchObject({ code: 1, stdout: 'error: organization not found' });
  });
});

async function tableRunRaw(args: string[]) {
  const [{ runCli }, { createAdminContext }, { systemClock }] = await Promise.all([
    import('../src/cli'),
    import('../src/context'),
    import('@svc/platform'),
  ]);
  return runCli(args, process.env, (e) => createAdminContext(e, systemClock));
}

async function tableRun(args: string[]): Promise<string> {
  const r = await tableRunRaw(args);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stdout}`);
  return r.stdout;
}

describe('--help of the show, list and change verbs', () => {
  it('each prints its usage with what it does, as text, exit 0, without opening a connection', async () => {
    const { runCli } = await import('../src/cli');
    const never = () => {
      throw new Error('help needs no context');
    };
    const verbs = [
      'org show',
      'sector show',
      'account show',
      'keys list',
      'app remove-rule',
      'app remove-return-rule',
      'oidc-client show',
      'oidc-client set',
      'oidc-client rotate-secret',
      'oidc-client delete',
    ];
    for (const verb of verbs) {
      const r = await runCli([...verb.split(' '), '--help'], {}, never);
      expect({ verb, code: r.code }).toEqual({ verb, code: 0 });
      // The synopsis, then in parentheses what the command does.
      expect(r.stdout).toMatch(new RegExp(`^usage:\\n  pnpm -s admin ${verb} \\S.*\\(\\w.+\\)\\n$`));
    }
    const all = await runCli(['--help'], {}, never);
    expect(all.stdout).toContain('--format table');
  });
});
