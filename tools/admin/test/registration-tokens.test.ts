// `oidc-client registration-token create|list|revoke` through runCli against the real database: the token is
// printed once and only its SHA-256 stored; uses and expiry as asked (defaults 1 and 24 h); list never shows a
// token; revoke stops it; every bad input is refused with a clear error.
import { hashRegistrationToken } from '@svc/provisioning';
import { provisionApp, uniqueName, useInfra } from '@svc/testkit';
import { admin, ok } from './run-admin';

const infra = useInfra();

async function oidcApp(): Promise<string> {
  const app = await provisionApp(infra);
  await ok(['app', 'add-rule', '--app', app.anchor, '--method', 'OIDC']);
  return app.anchor;
}

const create = (anchor: string, ...flags: string[]) =>
  ok(['oidc-client', 'registration-token', 'create', '--app', anchor, ...flags]);

test('create prints the token once and stores its hash; list shows uses and expiry, never the token', async () => {
  const anchor = await oidcApp();
  const before = Date.now();
  const made = await create(anchor, '--uses', '5', '--expires-in-hours', '48');
  expect(made).toEqual({
    registrationToken: {
      id: expect.any(String),
      applicationAnchor: anchor,
      usesLeft: 5,
      expiresAt: expect.any(String),
      revokedAt: null,
    },
    token: expect.stringMatching(/^oirt_[A-Za-z0-9_-]{43}$/),
  });
  const expiresAt = Date.parse(made.registrationToken.expiresAt);
  expect(expiresAt - before).toBeGreaterThanOrEqual(48 * 3600_000 - 1000);
  expect(expiresAt - Date.now()).toBeLessThanOrEqual(48 * 3600_000);
  const row = await infra.db.oidcRegistrationToken.findUniqueOrThrow({
    where: { id: made.registrationToken.id },
  });
  expect(row.tokenHash).toBe(hashRegistrationToken(made.token));
  expect(JSON.stringify(row)).not.toContain(made.token);

  const defaults = await create(anchor);
  expect(defaults.registrationToken.usesLeft).toBe(1);
  expect(Date.parse(defaults.registrationToken.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);

  const listed = await admin(['oidc-client', 'registration-token', 'list', '--app', anchor]);
  expect(listed.code).toBe(0);
  expect(listed.json.registrationTokens.map((t: { id: string }) => t.id)).toEqual([
    made.registrationToken.id,
    defaults.registrationToken.id,
  ]);
  expect(listed.stdout).not.toContain(made.token);
  expect(listed.stdout).not.toMatch(/tokenHash|token_hash/);
});

test('revoke marks the token revoked once', async () => {
  const anchor = await oidcApp();
  const made = await create(anchor);
  const revoked = await ok([
    'oidc-client',
    'registration-token',
    'revoke',
    '--id',
    made.registrationToken.id,
  ]);
  expect(revoked).toEqual({ id: made.registrationToken.id, revokedAt: expect.any(String) });
  const again = await admin([
    'oidc-client',
    'registration-token',
    'revoke',
    '--id',
    made.registrationToken.id,
  ]);
  expect([again.code, again.json.error]).toEqual([1, expect.stringMatching(/not found or already revoked/)]);
});

test('bad input is refused with a clear error', async () => {
  const anchor = await oidcApp();
  const plain = (await provisionApp(infra)).anchor;
  const refusals: [string[], number, RegExp][] = [
    [['oidc-client', 'registration-token', 'create'], 2, /missing --app/],
    [
      ['oidc-client', 'registration-token', 'create', '--app', anchor, '--uses', '0'],
      2,
      /--uses must be an integer from 1 to 1000/,
    ],
    [
      ['oidc-client', 'registration-token', 'create', '--app', anchor, '--uses', '2.5'],
      2,
      /--uses must be an integer/,
    ],
    [
      ['oidc-client', 'registration-token', 'create', '--app', anchor, '--expires-in-hours', '9000'],
      2,
      /--expires-in-hours must be an integer from 1 to 8760/,
    ],
    [
      ['oidc-client', 'registration-token', 'create', '--app', uniqueName('absent')],
      1,
      /application not found/,
    ],
    [['oidc-client', 'registration-token', 'create', '--app', plain], 1, /no OIDC authentication rule/],
    [['oidc-client', 'registration-token', 'revoke', '--id', 'x'], 2, /--id must be an id/],
    [['oidc-client', 'registration-token', 'destroy'], 2, /unknown command oidc-client registration-token/],
  ];
  for (const [args, code, message] of refusals) {
    const r = await admin(args);
    expect([args.join(' '), r.code, r.json.error]).toEqual([
      args.join(' '),
      code,
      expect.stringMatching(message),
    ]);
  }
});
