// `pnpm admin secrets reseal`: one JSON line `{"resealed": N}` counting what a previous key had sealed, 0 on a
// second run; on a private database, since it acts on every sealed secret.
import { randomBytes } from 'node:crypto';
import { openInfra, openPrivateDb, type PrivateDb, provisionApp } from '@svc/testkit';
import { kekFromBytes } from '@svc/token-core';
import { admin } from './run-admin';

let pdb: PrivateDb;
beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'reseal' });
});
afterAll(async () => {
  await pdb.drop();
});

test('re-seals what the previous key sealed, then finds nothing left', async () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const infra = openInfra({ over: pdb.db, kek: kekFromBytes(oldKey) });
  try {
    await provisionApp(infra);
    await provisionApp(infra);
  } finally {
    await infra.close();
  }
  const env = {
    DATABASE_URL: pdb.url,
    KEY_ENCRYPTION_KEY: newKey.toString('base64'),
    KEY_ENCRYPTION_KEYS_PREVIOUS: oldKey.toString('base64'),
  };
  const first = await admin(['secrets', 'reseal'], env);
  expect([first.code, first.json]).toEqual([0, { resealed: 2 }]);
  const second = await admin(['secrets', 'reseal'], env);
  expect([second.code, second.json]).toEqual([0, { resealed: 0 }]);
  // Without the previous key nothing opens them any more, but nothing needs to: all are under the new key.
  const without = await admin(['secrets', 'reseal'], { ...env, KEY_ENCRYPTION_KEYS_PREVIOUS: '' });
  expect([without.code, without.json]).toEqual([0, { resealed: 0 }]);
});

test('a bad KEY_ENCRYPTION_KEYS_PREVIOUS is refused naming the variable, never its value', async () => {
  const bad = `${randomBytes(32).toString('base64')},short`;
  const r = await admin(['secrets', 'reseal'], { DATABASE_URL: pdb.url, KEY_ENCRYPTION_KEYS_PREVIOUS: bad });
  expect(r.code).not.toBe(0);
  expect(r.stdout).toContain('KEY_ENCRYPTION_KEYS_PREVIOUS');
  expect(r.stdout + r.stderr).not.toContain(bad.split(',')[0]);
});
