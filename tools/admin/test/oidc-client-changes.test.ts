// `oidc-client show|set|rotate-secret|delete` through runCli against the real database, and what they mean at a
// real OIDC host (a child process): after rotate-secret the old secret is refused and the new one accepted; after
// delete neither. Every bad input is refused with a clear error and changes nothing.
import { type ChildHost, provisionApp, spawnHost, uniqueName, useInfra, waitUntil } from '@svc/testkit';
import { admin, ok } from './run-admin';

const infra = useInfra();
let oidc: ChildHost | undefined;

afterAll(async () => {
  await oidc?.kill();
});

async function oidcApp(): Promise<string> {
  const app = await provisionApp(infra);
  await ok(['app', 'add-rule', '--app', app.anchor, '--method', 'OIDC']);
  return app.anchor;
}

/** Creates an OIDC client of `anchor` redirecting to https://a.example/cb, with any further creation flags. */
function createClient(anchor: string, ...flags: string[]) {
  return ok(['oidc-client', 'create', '--app', anchor, '--redirect-uri', 'https://a.example/cb', ...flags]);
}

/** The arguments of `oidc-client set` for `clientId` with `flags`. */
function setArgs(clientId: string, ...flags: string[]): string[] {
  return ['oidc-client', 'set', '--client', clientId, ...flags];
}

/** RFC 7009 revocation with client_secret_basic: 200 for an authenticated client whatever the token, else 401. */
async function revokeStatus(host: ChildHost, clientId: string, secret: string): Promise<number> {
  const res = await fetch(`${host.url}/revoke`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'token=not-a-token',
  });
  await res.arrayBuffer();
  return res.status;
}

describe('oidc-client show and set', () => {
  it('show prints every setting and the status, never the secret', async () => {
    const anchor = await oidcApp();
    const made = await createClient(anchor);
    const r = await admin(['oidc-client', 'show', '--client', made.clientId]);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      client: {
        clientId: made.clientId,
        applicationAnchor: anchor,
        authMethod: 'client_secret_basic',
        status: 'ACTIVE',
        redirectUris: ['https://a.example/cb'],
        postLogoutRedirectUris: [],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        webOrigins: [],
        requirePar: false,
        requireDpop: false,
        backchannelLogoutUri: null,
        clientName: null,
        createdAt: expect.any(String),
      },
    });
    expect(r.stdout).not.toContain(made.clientSecret);
    expect(r.stdout).not.toMatch(/secretHash|secret_hash|clientSecret/);
  });

  it('set replaces the lists given, keeps the others, and --clear empties one', async () => {
    const anchor = await oidcApp();
    const { clientId } = await createClient(
      anchor,
      '--auth-method',
      'none',
      '--post-logout-redirect-uri',
      'https://a.example/',
      '--web-origin',
      'https://a.example',
    );
    const set = await ok(
      setArgs(
        clientId,
        '--redirect-uri',
        'https://b.example/cb',
        '--redirect-uri',
        'http://localhost:3000/cb',
        '--grant',
        'authorization_code',
        '--grant',
        'device_code',
        '--clear',
        'web-origin',
      ),
    );
    expect(set.client).toMatchObject({
      clientId,
      redirectUris: ['https://b.example/cb', 'http://localhost:3000/cb'],
      postLogoutRedirectUris: ['https://a.example/'],
      grantTypes: ['authorization_code', 'device_code'],
      webOrigins: [],
      status: 'ACTIVE',
    });
    expect(await ok(['oidc-client', 'show', '--client', clientId])).toEqual(set);
    // Device-only: the code flow's redirect URIs and response types must go too, and then it is accepted.
    const device = await ok(
      setArgs(clientId, '--grant', 'device_code', '--clear', 'redirect-uri', '--clear', 'response-type'),
    );
    expect(device.client).toMatchObject({ grantTypes: ['device_code'], redirectUris: [], responseTypes: [] });
  });

  it('refuses --web-origin for a confidential client at create and at set; nothing is created or changed', async () => {
    const anchor = await oidcApp();
    const refusal = /--web-origin is for a public client \(--auth-method none\) only/;
    for (const method of ['client_secret_basic', 'client_secret_post']) {
      const r = await admin([
        'oidc-client',
        'create',
        '--app',
        anchor,
        '--redirect-uri',
        'https://a.example/cb',
        '--auth-method',
        method,
        '--web-origin',
        'https://a.example',
      ]);
      expect([r.code, Object.keys(r.json)]).toEqual([1, ['error']]);
      expect(r.json.error).toMatch(refusal);
    }
    // The default method is client_secret_basic: refused too.
    const byDefault = await admin([
      'oidc-client',
      'create',
      '--app',
      anchor,
      '--redirect-uri',
      'https://a.example/cb',
      '--web-origin',
      'https://a.example',
    ]);
    expect(byDefault.code).toBe(1);
    expect(byDefault.json.error).toMatch(refusal);
    const app = await infra.db.application.findUniqueOrThrow({ where: { anchor } });
    expect(await infra.db.oidcClient.count({ where: { applicationId: app.id } })).toBe(0);
    // set: a confidential client is refused an origin, alone or beside another change.
    const { clientId } = await createClient(anchor, '--auth-method', 'client_secret_post');
    const before = await ok(['oidc-client', 'show', '--client', clientId]);
    for (const flags of [
      ['--web-origin', 'https://a.example'],
      ['--redirect-uri', 'https://b.example/cb', '--web-origin', 'https://b.example'],
    ]) {
      const r = await admin(setArgs(clientId, ...flags));
      expect(r.code).toBe(1);
      expect(r.json.error).toMatch(refusal);
    }
    expect(await ok(['oidc-client', 'show', '--client', clientId])).toEqual(before);
    // A confidential client that got an origin before the rule: any change keeping it is refused, and
    // --clear web-origin is the way out.
    await infra.db.oidcClient.update({ where: { clientId }, data: { webOrigins: ['https://a.example'] } });
    const keeping = await admin(setArgs(clientId, '--redirect-uri', 'https://b.example/cb'));
    expect(keeping.code).toBe(1);
    expect(keeping.json.error).toMatch(/--clear web-origin/);
    const cleared = await ok(setArgs(clientId, '--clear', 'web-origin'));
    expect(cleared.client).toMatchObject({ webOrigins: [], authMethod: 'client_secret_post' });
  });

  it('--require-par and --require-dpop true|false turn the pushed-request and DPoP requirements on and off; created with the switches', async () => {
    const anchor = await oidcApp();
    const made = await createClient(anchor, '--require-par');
    expect((await ok(['oidc-client', 'show', '--client', made.clientId])).client).toMatchObject({
      requirePar: true,
    });
    const off = await ok(setArgs(made.clientId, '--require-par', 'false'));
    expect(off.client).toMatchObject({ requirePar: false, redirectUris: ['https://a.example/cb'] });
    const on = await ok(setArgs(made.clientId, '--require-par', 'true'));
    expect(on.client).toMatchObject({ requirePar: true });
    const dpop = await createClient(anchor, '--require-dpop');
    expect((await ok(['oidc-client', 'show', '--client', dpop.clientId])).client.requireDpop).toBe(true);
    const dpopOff = await ok(setArgs(dpop.clientId, '--require-dpop', 'false'));
    expect(dpopOff.client).toMatchObject({ requireDpop: false, redirectUris: ['https://a.example/cb'] });
    const dpopOn = await ok(setArgs(dpop.clientId, '--require-dpop', 'true'));
    expect(dpopOn.client.requireDpop).toBe(true);
    const stored = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId: dpop.clientId } });
    expect(stored.requireDpop).toBe(true);
  });

  it('--backchannel-logout-uri at create and set (event target rules), shown, and cleared', async () => {
    const anchor = await oidcApp();
    const made = await createClient(anchor, '--backchannel-logout-uri', 'https://rp.example/backchannel');
    expect((await ok(['oidc-client', 'show', '--client', made.clientId])).client).toMatchObject({
      backchannelLogoutUri: 'https://rp.example/backchannel',
    });
    const loopback = await ok(setArgs(made.clientId, '--backchannel-logout-uri', 'http://127.0.0.1:8080/bc'));
    expect(loopback.client).toMatchObject({ backchannelLogoutUri: 'http://127.0.0.1:8080/bc' });
    const listed = await ok(['oidc-client', 'list', '--app', anchor]);
    expect(JSON.stringify(listed)).toContain('http://127.0.0.1:8080/bc');
    for (const uri of ['http://rp.example/bc', 'not a url']) {
      const refused = await admin(setArgs(made.clientId, '--backchannel-logout-uri', uri));
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatch(/^--backchannel-logout-uri: /);
      const created = await admin([
        'oidc-client',
        'create',
        '--app',
        anchor,
        '--redirect-uri',
        'https://a.example/cb',
        '--backchannel-logout-uri',
        uri,
      ]);
      expect(created.code).toBe(1);
    }
    const both = await admin(
      setArgs(
        made.clientId,
        '--backchannel-logout-uri',
        'https://a.example/bc',
        '--clear-backchannel-logout-uri',
      ),
    );
    expect([both.code, both.json.error]).toEqual([2, expect.stringMatching(/not both/)]);
    expect((await ok(['oidc-client', 'show', '--client', made.clientId])).client.backchannelLogoutUri).toBe(
      'http://127.0.0.1:8080/bc',
    );
    const cleared = await ok(setArgs(made.clientId, '--clear-backchannel-logout-uri'));
    expect(cleared.client.backchannelLogoutUri).toBeNull();
  });

  it('refuses every bad input with a clear error and changes nothing', async () => {
    const anchor = await oidcApp();
    const { clientId } = await createClient(anchor);
    const before = await ok(['oidc-client', 'show', '--client', clientId]);
    const set = (...flags: string[]) => setArgs(clientId, ...flags);
    const refusals: [string[], number, RegExp][] = [
      [set(), 2, /^nothing to change/],
      [set('--redirect-uri', 'http://a.example/cb'), 1, /--redirect-uri must be HTTPS/],
      [set('--redirect-uri', 'https://a.example/cb#x'), 1, /must not have a fragment/],
      [set('--web-origin', 'https://a.example/path'), 1, /--web-origin must be scheme/],
      [set('--grant', 'implicit'), 1, /--grant must be one of/],
      [set('--response-type', 'token token'), 1, /--response-type must be one of/],
      [set('--grant', 'device_code'), 1, /add --clear redirect-uri --clear response-type/],
      [set('--clear', 'redirect-uri'), 1, /give at least one --redirect-uri/],
      [set('--clear', 'secret'), 2, /--clear must be one of/],
      [set('--web-origin', 'https://a.example', '--clear', 'web-origin'), 2, /not both/],
      [set('--require-dpop', 'yes'), 2, /--require-dpop must be one of/],
      [set('--auth-method', 'none'), 2, /auth method is fixed at creation/],
      [set('--require-par', 'yes'), 2, /--require-par must be one of/],
      [
        set(
          '--require-par',
          'true',
          '--grant',
          'device_code',
          '--clear',
          'redirect-uri',
          '--clear',
          'response-type',
        ),
        1,
        /--require-par needs --grant authorization_code/,
      ],
      [setArgs('oidc_absent', '--grant', 'device_code'), 1, /OIDC client not found/],
      [['oidc-client', 'show', '--client', 'bad id!'], 2, /--client must be a client id/],
      [['oidc-client', 'show'], 2, /^missing --client$/],
      [['oidc-client', 'rotate-secret', '--client', 'oidc_absent'], 1, /OIDC client not found/],
      [['oidc-client', 'delete', '--client', `oidc_${uniqueName('x')}`], 1, /OIDC client not found/],
    ];
    for (const [args, code, error] of refusals) {
      const r = await admin(args);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(Object.keys(r.json)).toEqual(['error']);
      expect(r.json.error).toMatch(error);
    }
    expect(await ok(['oidc-client', 'show', '--client', clientId])).toEqual(before);
    const stored = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId } });
    expect(stored.status).toBe('ACTIVE');
  });
});

describe('oidc-client rotate-secret and delete at a real OIDC host', () => {
  beforeAll(async () => {
    oidc = await spawnHost('services/oidc/src/main.ts', { OIDC_REDIS_PREFIX: uniqueName('admoidc') });
  }, 120_000);

  it('rotate-secret prints a new secret once and the old one stops working; delete ends the client', async () => {
    const host = oidc!;
    const anchor = await oidcApp();
    const made = await createClient(anchor);
    expect(await revokeStatus(host, made.clientId, made.clientSecret)).toBe(200);

    const rotated = await admin(['oidc-client', 'rotate-secret', '--client', made.clientId]);
    expect(rotated.code).toBe(0);
    expect(rotated.json).toEqual({ clientId: made.clientId, clientSecret: expect.stringMatching(/^oidcs_/) });
    const fresh = rotated.json.clientSecret as string;
    expect(fresh).not.toBe(made.clientSecret);
    // The host reads clients through a cache of a couple of seconds: the change shows within it.
    await waitUntil(async () => (await revokeStatus(host, made.clientId, made.clientSecret)) === 401, 15_000);
    expect(await revokeStatus(host, made.clientId, fresh)).toBe(200);
    // Shown once: nothing prints it again.
    expect((await admin(['oidc-client', 'show', '--client', made.clientId])).stdout).not.toContain(fresh);

    expect(await ok(['oidc-client', 'delete', '--client', made.clientId])).toEqual({
      clientId: made.clientId,
      status: 'REVOKED',
    });
    await waitUntil(async () => (await revokeStatus(host, made.clientId, fresh)) === 401, 15_000);
    // Deleted stays deleted: no second delete, rotation or change; listed as REVOKED.
    for (const verb of [['delete'], ['rotate-secret'], ['set', '--grant', 'device_code']]) {
      const r = await admin(['oidc-client', verb[0]!, '--client', made.clientId, ...verb.slice(1)]);
      expect([r.code, r.json]).toEqual([
        1,
        { error: `OIDC client ${made.clientId} is deleted; it cannot be changed` },
      ]);
    }
    const listed = await ok(['oidc-client', 'list', '--app', anchor]);
    expect(listed.clients).toEqual([expect.objectContaining({ clientId: made.clientId, status: 'REVOKED' })]);
  }, 60_000);

  it('rotate-secret refuses a public client, which has no secret, and changes nothing', async () => {
    const anchor = await oidcApp();
    const { clientId } = await createClient(anchor, '--auth-method', 'none');
    const r = await admin(['oidc-client', 'rotate-secret', '--client', clientId]);
    expect([r.code, r.json.error]).toEqual([1, expect.stringMatching(/public .* no secret to rotate/)]);
    const stored = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId } });
    expect([stored.secretHash, stored.status]).toEqual([null, 'ACTIVE']);
  });
});
