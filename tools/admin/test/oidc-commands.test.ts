// `oidc-client create` and `keys rotate|revoke --oidc`: the command line parsed without spawning, the operations
// run against the real database (the secret shown once and stored only as its SHA-256).
import { createHash } from 'node:crypto';
import { OIDC_SCOPE, publishedKids } from '@svc/keyring';
import {
  createOidcClient,
  ProvisioningError,
  revokeOidcKeyNow,
  rotateOidcKeysNow,
  rotateOidcKeysPrepublished,
} from '@svc/provisioning';
import { COMMANDS, parseCommandLine, UsageError } from '@svc/provisioning/commands';
import { provisionApp, useInfra } from '@svc/testkit';

const infra = useInfra();
/** The rotation windows as the admin tool's defaults give them (KEY_CACHE_TTL_MS 30 s). */
const WINDOWS = { publishedSeconds: 330, keyCacheTtlMs: 30_000 };

function parse(line: string[]) {
  const p = parseCommandLine(COMMANDS, line);
  if (p.kind !== 'command') throw new Error('expected a command');
  return p.input as Record<string, unknown>;
}

function usageError(line: string[]): string {
  try {
    parseCommandLine(COMMANDS, line);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('oidc-client create', () => {
  it('parses repeated URIs and the auth method; refuses a missing redirect URI or an unknown method', () => {
    expect(
      parse([
        'oidc-client',
        'create',
        '--app',
        'my-game',
        '--redirect-uri',
        'https://a.example/cb',
        '--redirect-uri',
        'http://localhost:3000/cb',
        '--post-logout-redirect-uri',
        'https://a.example/',
        '--auth-method',
        'none',
      ]),
    ).toEqual({
      anchor: 'my-game',
      redirectUris: ['https://a.example/cb', 'http://localhost:3000/cb'],
      postLogoutRedirectUris: ['https://a.example/'],
      authMethod: 'none',
      responseTypes: [],
      grants: [],
      webOrigins: [],
      requirePar: false,
      requireDpop: false,
    });
    expect(
      parse(['oidc-client', 'create', '--app', 'my-game', '--redirect-uri', 'https://a/', '--require-par']),
    ).toMatchObject({ requirePar: true });
    expect(usageError(['oidc-client', 'create', '--app', 'my-game'])).toMatch(/redirect-uri/);
    expect(
      usageError([
        'oidc-client',
        'create',
        '--app',
        'my-game',
        '--redirect-uri',
        'https://a/',
        '--auth-method',
        'x',
      ]),
    ).toMatch(/auth-method/);
  });

  it('needs an OIDC rule; prints the secret once and stores only its hash; refuses bad redirect URIs', async () => {
    const bare = await provisionApp(infra);
    await expect(
      createOidcClient(infra.provisioning, { anchor: bare.anchor, redirectUris: ['https://rp.example/cb'] }),
    ).rejects.toThrow(/OIDC authentication rule/);

    const app = await provisionApp(infra, { methods: ['OIDC'] });
    const created = await createOidcClient(infra.provisioning, {
      anchor: app.anchor,
      redirectUris: ['https://rp.example/cb'],
    });
    expect(created.clientId).toMatch(/^oidc_[A-Za-z0-9_-]{24}$/);
    expect((created as { clientSecret: string }).clientSecret).toMatch(/^oidcs_[0-9a-f]{64}$/);
    const row = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId: created.clientId } });
    expect(row.secretHash).toBe(
      createHash('sha256')
        .update((created as { clientSecret: string }).clientSecret)
        .digest('hex'),
    );
    expect(row.authMethod).toBe('client_secret_basic');
    // RFC 9700: code alone unless the implicit or hybrid types are asked for; no web origin, the code grant.
    expect(row.responseTypes).toEqual(['code']);
    expect(row.webOrigins).toEqual([]);
    expect(row.grantTypes).toEqual(['authorization_code']);

    const pub = await createOidcClient(infra.provisioning, {
      anchor: app.anchor,
      redirectUris: ['https://rp.example/cb'],
      authMethod: 'none',
      responseTypes: ['token id_token'],
    });
    expect(pub).not.toHaveProperty('clientSecret');
    const pubRow = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId: pub.clientId } });
    expect(pubRow.secretHash).toBeNull();
    expect(pubRow.responseTypes).toEqual(['id_token token']);

    const web = await createOidcClient(infra.provisioning, {
      anchor: app.anchor,
      redirectUris: ['https://spa.example/cb'],
      authMethod: 'none',
      webOrigins: ['https://spa.example', 'http://localhost:5173/', 'https://spa.example'],
    });
    const webRow = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId: web.clientId } });
    expect(webRow.webOrigins).toEqual(['https://spa.example', 'http://localhost:5173']);
    for (const origin of [
      'http://spa.example',
      'https://spa.example/app',
      'https://u:p@spa.example',
      '*',
      'null',
    ]) {
      await expect(
        createOidcClient(infra.provisioning, {
          anchor: app.anchor,
          redirectUris: ['https://rp.example/cb'],
          webOrigins: [origin],
        }),
      ).rejects.toThrow(/--web-origin/);
    }

    // The device grant alone needs no redirect URI and registers no response type; it refuses one.
    const tv = await createOidcClient(infra.provisioning, {
      anchor: app.anchor,
      redirectUris: [],
      authMethod: 'none',
      grants: ['device_code'],
    });
    const tvRow = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId: tv.clientId } });
    expect(tvRow.grantTypes).toEqual(['device_code']);
    expect(tvRow.responseTypes).toEqual([]);
    expect(tvRow.redirectUris).toEqual([]);
    await expect(
      createOidcClient(infra.provisioning, {
        anchor: app.anchor,
        redirectUris: ['https://rp.example/cb'],
        grants: ['device_code'],
      }),
    ).rejects.toThrow(/--grant authorization_code/);
    await expect(
      createOidcClient(infra.provisioning, { anchor: app.anchor, redirectUris: [], grants: ['password'] }),
    ).rejects.toThrow(/--grant/);
    await expect(
      createOidcClient(infra.provisioning, { anchor: app.anchor, redirectUris: [] }),
    ).rejects.toThrow(/--redirect-uri/);

    for (const uri of ['http://rp.example/cb', 'https://rp.example/cb#x', 'https://u:p@rp.example/', 'cb']) {
      await expect(
        createOidcClient(infra.provisioning, { anchor: app.anchor, redirectUris: [uri] }),
      ).rejects.toBeInstanceOf(ProvisioningError);
    }
  });
});

describe('keys --oidc', () => {
  it('parses --oidc, refuses --app with --oidc', () => {
    expect(parse(['keys', 'rotate', '--oidc', '--now'])).toEqual({ app: undefined, oidc: true, now: true });
    expect(parse(['keys', 'revoke', '--oidc', '--kid', 'rk_x'])).toEqual({
      app: undefined,
      oidc: true,
      kid: 'rk_x',
    });
    expect(usageError(['keys', 'rotate', '--oidc', '--app', 'my-game'])).toBe(
      'give --app or --oidc, not both',
    );
  });

  it('rotate --now publishes a new signer beside the old; revoke removes a prepublished key at once', async () => {
    const before = await publishedKids(infra.db, OIDC_SCOPE, new Date(infra.issuance.clock()));
    const rotated = await rotateOidcKeysNow(
      infra.provisioning,
      infra.issuance.kek,
      WINDOWS,
      infra.issuance.clock,
    );
    expect(rotated.kids.some((k) => !before.includes(k))).toBe(true);
    // A prepublished key that never signed: revoking it touches no live token (other tests sign meanwhile).
    const prepublished = await rotateOidcKeysPrepublished(
      infra.provisioning,
      infra.issuance.kek,
      {
        ...WINDOWS,
        publishedSeconds: 3600,
      },
      infra.issuance.clock,
    );
    const waiting = prepublished.kids.find((k) => !rotated.kids.includes(k));
    expect(waiting).toBeDefined();
    const after = await revokeOidcKeyNow(
      infra.provisioning,
      infra.issuance.kek,
      waiting!,
      infra.issuance.clock,
    );
    expect(after.kids).not.toContain(waiting);
    await expect(
      revokeOidcKeyNow(infra.provisioning, infra.issuance.kek, 'rk_nosuchkey', infra.issuance.clock),
    ).rejects.toThrow(/not found/);
  });
});
