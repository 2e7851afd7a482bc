// Refusals of the CLI: exit codes, one JSON error object on stdout, nothing changed, no stacks. Each refusal runs
// in this process (runCli, all that main.ts wraps), so a loaded machine cannot time a process start out; the
// process itself (main.ts writing the line, the exit code, stderr) is checked on two of them at the end.
import { uniqueName, useInfra } from '@svc/testkit';
import { exportJWK, generateKeyPair } from 'jose';
import { type AdminRun, admin, adminProcess, jsonFile, ok } from './run-admin';

const infra = useInfra();
let sector: string;
let anchor: string;

beforeAll(async () => {
  // Fixtures through the CLI itself: a sector with one application.
  const org = (await ok(['org', 'create', '--name', uniqueName('Org')])).id;
  sector = (await ok(['sector', 'create', '--org', org, '--name', 'Errors'])).id;
  anchor = uniqueName('admin-err');
  await ok(['app', 'create', '--sector', sector, '--anchor', anchor, '--name', 'en-US=Errors']);
});

function expectRefusal(r: AdminRun, code: number, error: string | RegExp) {
  expect(r.code).toBe(code);
  expect(Object.keys(r.json)).toEqual(['error']);
  if (typeof error === 'string') expect(r.json.error).toBe(error);
  else expect(r.json.error).toMatch(error);
  // Nothing internal leaks: no stack frames, file paths or SQL on either stream.
  for (const out of [r.stdout, r.stderr]) expect(out).not.toMatch(/\s+at\s|\.ts:\d+|SELECT|INSERT|prisma/i);
}

describe('pnpm admin: refusals', () => {
  it('answers usage errors with exit 2, and help text on stderr for no args', async () => {
    const [none, unknown, missing, badEnum, badAnchor] = await Promise.all([
      admin([]),
      admin(['widget', 'create']),
      admin(['app', 'add-rule', '--app', anchor]),
      admin(['app', 'set-status', '--app', anchor, '--status', 'PAUSED']),
      admin(['app', 'create', '--sector', sector, '--anchor', 'Bad_Anchor', '--name', 'en-US=X']),
    ]);
    expect(none.code).toBe(2);
    // A bare run: one small JSON error on stdout for scripts, the readable help on stderr.
    expect(none.json).toEqual({ error: 'no command given' });
    expect(none.stderr).toMatch(/^usage: pnpm -s admin <resource> <verb>/);
    expect(none.stderr).toContain('  pnpm -s admin keys rotate --app A');
    expectRefusal(unknown, 2, 'unknown command widget');
    expectRefusal(missing, 2, 'missing --method');
    expect(missing.stderr).toContain('usage:');
    expectRefusal(badEnum, 2, '--status must be one of ACTIVE, SUSPENDED, DISABLED');
    expectRefusal(badAnchor, 2, /^--anchor must be an application anchor/);
    expect(await infra.db.application.findUnique({ where: { anchor: 'Bad_Anchor' } })).toBeNull();
    expect((await infra.db.application.findUniqueOrThrow({ where: { anchor } })).status).toBe('ACTIVE');
  });

  it('refuses a duplicate anchor and unknown applications, accounts and keys with exit 1', async () => {
    const ghostAccount = '00000000-0000-4000-8000-000000000000';
    const [dup, noApp, noAccount, noKey, noKid] = await Promise.all([
      admin(['app', 'create', '--sector', sector, '--anchor', anchor, '--name', 'en-US=Again']),
      admin(['app', 'add-return-rule', '--app', uniqueName('ghost'), '--method', 'CALLBACK']),
      admin(['account', 'accept-terms', '--account', ghostAccount]),
      admin(['access-key', 'revoke', '--id', 'acs_k_00000000-0000-4000-8000-000000000000']),
      admin(['keys', 'revoke', '--app', anchor, '--kid', 'rk_unknown']),
    ]);
    expectRefusal(dup, 1, 'an application with this anchor already exists');
    expectRefusal(noApp, 1, 'application not found');
    expectRefusal(noAccount, 1, 'account not found');
    expectRefusal(noKey, 1, 'access key not found');
    expectRefusal(noKid, 1, 'signing key not found for this application');
    const names = (await infra.db.application.findUniqueOrThrow({ where: { anchor } })).names;
    expect(names).toEqual({ 'en-US': 'Errors' });
    expect(await infra.db.signingKey.count({ where: { application: { anchor }, status: 'ACTIVE' } })).toBe(1);
  });

  it('takes a credential for --app or --sector, exactly one, and an existing sector', async () => {
    const account = (await ok(['account', 'create', '--email', `${uniqueName('cred')}@example.test`])).id;
    const jwkFile = jsonFile(
      await exportJWK((await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })).publicKey),
      'public.jwk.json',
    );
    const ghostSector = '00000000-0000-4000-8000-000000000000';
    const [both, neither, pkBoth, noSector, badSector] = await Promise.all([
      admin(['access-key', 'create', '--app', anchor, '--sector', sector, '--account', account]),
      admin(['access-key', 'create', '--account', account]),
      admin([
        'public-key',
        'register',
        '--app',
        anchor,
        '--sector',
        sector,
        '--account',
        account,
        '--jwk-file',
        jwkFile,
      ]),
      admin(['access-key', 'create', '--sector', ghostSector, '--account', account]),
      admin(['public-key', 'register', '--sector', 'nope', '--account', account, '--jwk-file', jwkFile]),
    ]);
    expectRefusal(both, 2, 'give --app or --sector, not both');
    expectRefusal(neither, 2, 'missing --app or --sector');
    expectRefusal(pkBoth, 2, 'give --app or --sector, not both');
    expectRefusal(noSector, 1, 'sector not found');
    expectRefusal(badSector, 2, '--sector must be an id (a UUID)');
    expect(await infra.db.accessKey.count({ where: { accountId: account } })).toBe(0);
    expect(await infra.db.publicKey.count({ where: { accountId: account } })).toBe(0);
  });

  it('refuses private JWKs, non-Ed25519 JWKs and broken files, registering nothing', async () => {
    const ed = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const ec = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = jsonFile(await exportJWK(ed.privateKey), 'private.jwk.json');
    const ecJwk = jsonFile(await exportJWK(ec.publicKey), 'ec.jwk.json');
    const notAPoint = jsonFile({ kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(42) }, 'bad-x.jwk.json');
    const [priv, p256, badX, missingFile, badTerms] = await Promise.all([
      admin(['app', 'add-client-key', '--app', anchor, '--jwk-file', privateJwk]),
      admin(['app', 'add-client-key', '--app', anchor, '--jwk-file', ecJwk]),
      admin(['app', 'add-client-key', '--app', anchor, '--jwk-file', notAPoint]),
      admin(['app', 'add-client-key', '--app', anchor, '--jwk-file', '/nonexistent/key.json']),
      admin([
        'terms',
        'publish',
        '--file',
        jsonFile({ locales: { 'en-US': { document: { schemaVersion: 2 } } } }),
      ]),
    ]);
    expectRefusal(priv, 1, 'the JWK holds a private key; register the public half only');
    expect(priv.stdout).not.toContain((await exportJWK(ed.privateKey)).d);
    expectRefusal(p256, 1, 'the JWK must be an Ed25519 public key (kty OKP, crv Ed25519)');
    expectRefusal(badX, 1, 'the JWK x member is not a 32-byte Ed25519 key');
    expectRefusal(missingFile, 2, '--jwk-file /nonexistent/key.json: no such file');
    expectRefusal(badTerms, 1, /^the terms file is not a valid agreement body: locales/);
    expect(await infra.db.clientKey.count({ where: { application: { anchor } } })).toBe(0);
  });

  it('still rotates keys when Redis is unreachable, with a warning', async () => {
    const r = await admin(['keys', 'rotate', '--app', anchor], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(r.code).toBe(0);
    expect(r.json.kids).toHaveLength(2);
    expect(r.json.warning).toMatch(/Redis \(REDIS_URL\) was unreachable/);
  });

  it('reports an unreachable database as exit 3 without internals', async () => {
    const r = await admin(['org', 'create', '--name', 'Nowhere'], {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/test',
    });
    expectRefusal(r, 3, 'cannot reach the database; check DATABASE_URL and that PostgreSQL is up');
  });

  it('the process writes the one JSON line, exits with the code and says usage on stderr', async () => {
    // One child at a time, each waited for until it exits: a process start (tsx) is slow on a busy machine.
    const usage = await adminProcess(['app', 'add-rule', '--app', anchor]);
    expectRefusal(usage, 2, 'missing --method');
    expect(usage.stderr).toContain('usage:');
    const unreachable = await adminProcess(['org', 'create', '--name', 'Nowhere'], {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/test',
    });
    expectRefusal(unreachable, 3, 'cannot reach the database; check DATABASE_URL and that PostgreSQL is up');
  }, 180_000);
});
