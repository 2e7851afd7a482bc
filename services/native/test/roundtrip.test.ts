// End to end: provision through the real `pnpm admin` CLI, sign in on the native host by access key and by
// public key, verify the tokens against the session host's published JWK Set with jose, then refresh,
// introspect and log out on the session host.
import { createAgreementsStore } from '@svc/issuance/stores';
import { postJson, uniqueName, useStarted } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { createRemoteJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { jsonFile, ok } from '../../../tools/admin/test/run-admin';
import { startSessionHost } from '../../session/test/support';
import { signAssertion, useNativeHost } from './helpers';

/** `pnpm admin ...args`, which must succeed; its JSON. */
const admin = (...args: string[]) => ok(args);

const n = useNativeHost();
const session = useStarted(() => startSessionHost());

test('admin CLI provisioning -> native sign-in -> session jwks, refresh, introspect, logout', async () => {
  const org = await admin('org', 'create', '--name', uniqueName('org'));
  const sector = await admin('sector', 'create', '--org', org.id, '--name', uniqueName('sector'));
  const anchor = uniqueName('rt');
  await admin(
    'app',
    'create',
    '--sector',
    sector.id,
    '--anchor',
    anchor,
    '--name',
    `en-US=Round trip ${anchor}`,
  );
  await admin('app', 'add-rule', '--app', anchor, '--method', 'ACCESS_KEY_DIRECT', '--access-ttl', '600');
  await admin('app', 'add-rule', '--app', anchor, '--method', 'PUBLIC_KEY_DIRECT');
  // Return rules are Layer 3 and govern return channels only: enabling DEVICE_CODE leaves direct issue working.
  await admin('app', 'add-return-rule', '--app', anchor, '--method', 'DEVICE_CODE');
  const account = await admin(
    'account',
    'create',
    '--email',
    `${uniqueName('rt')}@example.test`,
    '--given-name',
    'Grace',
  );
  if (await createAgreementsStore(n.infra.db).currentTerms())
    await admin('account', 'accept-terms', '--account', account.id);
  const key = await admin('access-key', 'create', '--app', anchor, '--account', account.id);
  expect(key.accessKeyIdentifier).toMatch(/^acs_k_/);

  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwkFile = jsonFile(await exportJWK(publicKey), 'key.json');
  const { kid } = await admin(
    'public-key',
    'register',
    '--app',
    anchor,
    '--account',
    account.id,
    '--jwk-file',
    jwkFile,
  );

  const byKey = await postJson(`${n.host.url}/direct-issue/access-key`, {
    applicationAnchor: anchor,
    ...key,
  });
  expect(byKey.status).toBe(200);
  const body = JSON.stringify({ applicationAnchor: anchor });
  const jws = await signAssertion(privateKey, kid, body);
  const byPk = await postJson(`${n.host.url}/direct-issue/public-key`, body, {
    authorization: `PublicKey ${jws}`,
  });
  expect(byPk.status).toBe(200);

  const jwks = createRemoteJWKSet(new URL(`${session.url}/applications/${anchor}/jwks.json`));
  // The ACCESS_KEY_DIRECT rule set a 600 s access TTL; PUBLIC_KEY_DIRECT keeps the 3 h default.
  for (const [pair, ttl] of [
    [byKey.body, 600],
    [byPk.body, 10_800],
  ] as const) {
    const access = await jwtVerify(pair.accessToken, jwks, {
      algorithms: ['RS256'],
      audience: anchor,
      typ: TYP.accountAccess,
    });
    expect(access.payload.exp! - access.payload.iat!).toBe(ttl);
    await jwtVerify(pair.refreshToken, jwks, { algorithms: ['RS256'], audience: anchor, typ: TYP.refresh });
  }
  expect(decodeJwt(byKey.body.accessToken).sub).toBe(decodeJwt(byPk.body.accessToken).sub);

  const refreshed = await postJson(`${session.url}/refresh`, { refreshToken: byKey.body.refreshToken });
  expect(refreshed.status).toBe(200);
  expect(decodeJwt(refreshed.body.refreshToken).rotationVersion).toBe(2);
  expect(decodeJwt(refreshed.body.refreshToken).sid).toBe(decodeJwt(byKey.body.refreshToken).sid);
  await jwtVerify(refreshed.body.accessToken, jwks, { audience: anchor, typ: TYP.accountAccess });

  const active = await postJson(`${session.url}/introspect`, { accessToken: refreshed.body.accessToken });
  expect(active.body.status).toBe('active');
  const out = await postJson(`${session.url}/logout`, { refreshToken: refreshed.body.refreshToken });
  expect(out.status).toBe(200);
  const after = await postJson(`${session.url}/introspect`, { accessToken: refreshed.body.accessToken });
  expect(after.body.status).toBe('revoked');
  // The native host's /errand no longer accepts the logged-out session's token.
  expect((await postJson(`${n.host.url}/errand`, { accessToken: refreshed.body.accessToken })).status).toBe(
    401,
  );
  // The other session (public key) is untouched.
  const other = await postJson(`${session.url}/introspect`, { accessToken: byPk.body.accessToken });
  expect(other.body.status).toBe('active');
}, 120_000);
