// The admin tool never seals or opens under a key nobody named (issue #37): with KEY_ENCRYPTION_KEY missing or
// misspelt it refuses every command that seals (exit 1, naming the variable, nothing changed), and the development
// key only when asked for by name (KEY_ENCRYPTION_KEY=development), on a database on this machine, with no previous
// key to reseal from. Commands that neither seal nor open run without a key. On a private database, since a reseal
// acts on every sealed secret.
import { randomBytes } from 'node:crypto';
import { openInfra, openPrivateDb, type PrivateDb, provisionApp, uniqueName } from '@svc/testkit';
import { kekFromBytes, openWithId } from '@svc/token-core';
import { admin, adminProcess } from './run-admin';

let pdb: PrivateDb;
const OLD = randomBytes(32);
const NEW = randomBytes(32);
beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'namedkek' });
  const infra = openInfra({ over: pdb.db, kek: kekFromBytes(OLD) });
  try {
    await provisionApp(infra);
    await provisionApp(infra);
  } finally {
    await infra.close();
  }
});
afterAll(async () => {
  await pdb.drop();
});

/** Every sealed private key, by kid: what a refused command must leave as it was. */
async function sealed(): Promise<Record<string, string>> {
  const keys = await pdb.db.signingKey.findMany({ select: { kid: true, privateKeyEnc: true } });
  return Object.fromEntries(keys.map((k) => [k.kid, k.privateKeyEnc]));
}

function expectKekRefusal(r: { code: number; json: Record<string, unknown> }, pattern: RegExp) {
  expect(r.code).toBe(1);
  expect(Object.keys(r.json)).toEqual(['error']);
  expect(r.json.error).toMatch(/KEY_ENCRYPTION_KEY/);
  expect(r.json.error).toMatch(pattern);
}

test("the issue's reseal with KEY_ENCRYPTION_KEY misspelt is refused naming the variable; nothing is resealed", async () => {
  const before = await sealed();
  // As the issue ran it: KEY_ENCRYPTION_KEYS (misspelt) and the old key as previous, NODE_ENV unset and `test`.
  for (const nodeEnv of ['', 'test', 'development']) {
    const r = await admin(['secrets', 'reseal'], {
      DATABASE_URL: pdb.url,
      NODE_ENV: nodeEnv,
      KEY_ENCRYPTION_KEY: '',
      KEY_ENCRYPTION_KEYS: NEW.toString('base64'),
      KEY_ENCRYPTION_KEYS_PREVIOUS: OLD.toString('base64'),
    });
    expectKekRefusal(r, /is not set/);
  }
  expect(await sealed()).toEqual(before);
  // Every key still opens under the old key only.
  for (const [kid, value] of Object.entries(before)) {
    expect(openWithId(kekFromBytes(OLD), value, kid).kekId).toBe(kekFromBytes(OLD).id);
  }
});

test('the development key is refused for a reseal from a real previous key, even asked for by name', async () => {
  const before = await sealed();
  const r = await admin(['secrets', 'reseal'], {
    DATABASE_URL: pdb.url,
    KEY_ENCRYPTION_KEY: 'development',
    KEY_ENCRYPTION_KEYS_PREVIOUS: OLD.toString('base64'),
  });
  expectKekRefusal(r, /KEY_ENCRYPTION_KEYS_PREVIOUS/);
  expect(await sealed()).toEqual(before);
});

test('app create with no key is refused and creates nothing; with the development key named it works', async () => {
  const org = await admin(['org', 'create', '--name', uniqueName('KekOrg')], {
    DATABASE_URL: pdb.url,
    KEY_ENCRYPTION_KEY: '',
  });
  // A command that neither seals nor opens runs without a key.
  expect(org.code).toBe(0);
  const sector = await admin(['sector', 'create', '--org', org.json.id, '--name', 'Kek'], {
    DATABASE_URL: pdb.url,
    KEY_ENCRYPTION_KEY: '',
  });
  expect(sector.code).toBe(0);
  const anchor = uniqueName('kek-app');
  const create = ['app', 'create', '--sector', sector.json.id, '--anchor', anchor, '--name', 'en-US=Kek'];
  expectKekRefusal(await admin(create, { DATABASE_URL: pdb.url, KEY_ENCRYPTION_KEY: '' }), /development/);
  expect(await pdb.db.application.findUnique({ where: { anchor } })).toBeNull();
  // The list still answers without a key.
  const list = await admin(['app', 'list'], { DATABASE_URL: pdb.url, KEY_ENCRYPTION_KEY: '' });
  expect(list.code).toBe(0);
  // Named: created, its key sealed under the development key.
  const named = await admin(create, { DATABASE_URL: pdb.url, KEY_ENCRYPTION_KEY: 'development' });
  expect(named.code).toBe(0);
  expect(await pdb.db.application.findUnique({ where: { anchor } })).not.toBeNull();
});

test('the development key is refused for a database that is not on this machine, and in production', async () => {
  const remote = new URL(pdb.url);
  remote.hostname = 'db.invalid';
  const args = ['app', 'create', '--sector', '00000000-0000-4000-8000-000000000000', '--anchor', 'x-remote'];
  const r = await admin([...args, '--name', 'en-US=X'], {
    DATABASE_URL: remote.toString(),
    KEY_ENCRYPTION_KEY: 'development',
  });
  expectKekRefusal(r, /development database/);
  // The base64 of the development key is the development key too.
  const spelled = await admin([...args, '--name', 'en-US=X'], {
    DATABASE_URL: remote.toString(),
    KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  expectKekRefusal(spelled, /development database/);
  const production = await admin(['app', 'list'], {
    DATABASE_URL: pdb.url,
    NODE_ENV: 'production',
    KEY_ENCRYPTION_KEY: 'development',
  });
  expect(production.code).toBe(3);
  expect(production.json.error).toMatch(/KEY_ENCRYPTION_KEY cannot be the development key in production/);
});

test('the process itself exits 1 with one JSON line for a reseal without a key', async () => {
  const r = await adminProcess(['secrets', 'reseal'], {
    DATABASE_URL: pdb.url,
    KEY_ENCRYPTION_KEY: '',
    KEY_ENCRYPTION_KEYS_PREVIOUS: OLD.toString('base64'),
  });
  expectKekRefusal(r, /is not set/);
}, 120_000);
