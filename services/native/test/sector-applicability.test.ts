// Credential applicability by sector (spec: "the credential's immutable application/sector applicability must
// include the named application"): a credential made for a sector issues for every application of that sector and,
// on every direct issue, for no other; an application outside it gets the path's one opaque denial, byte-identical
// to another application's credential.
import { postJson, provisionApp } from '@svc/testkit';
import {
  accessKeyFor,
  publicKeyFor,
  sessionCount,
  settledAccount,
  signAssertion,
  useNativeHost,
} from './helpers';

const n = useNativeHost();
const METHODS = ['ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT'];

/** Two applications in one sector, one in another sector, and an account. */
async function sectorFixture() {
  const first = await provisionApp(n.infra, { methods: METHODS });
  const second = await provisionApp(n.infra, { methods: METHODS, sectorId: first.sectorId });
  const outside = await provisionApp(n.infra, { methods: METHODS });
  const account = await settledAccount(n.infra);
  return { first, second, outside, account };
}

test('an access key made for a sector issues for each of its applications and for none outside it', async () => {
  const f = await sectorFixture();
  const key = await accessKeyFor(n.infra, { sectorId: f.first.sectorId }, f.account.id);
  const issue = (anchor: string) =>
    postJson(`${n.host.url}/direct-issue/access-key`, {
      applicationAnchor: anchor,
      accessKeyIdentifier: key.accessKeyIdentifier,
      accessKeySecret: key.accessKeySecret,
    });
  for (const app of [f.first, f.second]) {
    const res = await issue(app.anchor);
    expect(res.status).toBe(200);
    expect(res.body.applicationAnchor).toBe(app.anchor);
  }
  // Outside the sector: the same bytes as another application's key (today's wrong-application answer).
  const appKey = await accessKeyFor(n.infra, f.first.anchor, f.account.id);
  const wrongApp = await postJson(`${n.host.url}/direct-issue/access-key`, {
    applicationAnchor: f.second.anchor,
    accessKeyIdentifier: appKey.accessKeyIdentifier,
    accessKeySecret: appKey.accessKeySecret,
  });
  const outside = await issue(f.outside.anchor);
  expect([outside.status, outside.text]).toEqual([401, '{"reason":"AccessKeyDirectDenied"}']);
  expect([wrongApp.status, wrongApp.text]).toEqual([outside.status, outside.text]);
  expect(await sessionCount(n.infra, f.account.id)).toBe(2);
});

test('a public key registered for a sector: each of its applications, none outside, jti kept for a retry', async () => {
  const f = await sectorFixture();
  const cred = await publicKeyFor(n.infra, { sectorId: f.first.sectorId }, f.account.id);
  const issue = async (anchor: string, jws?: string) => {
    const body = JSON.stringify({ applicationAnchor: anchor });
    const authorization = `PublicKey ${jws ?? (await signAssertion(cred.key, cred.kid, body))}`;
    return postJson(`${n.host.url}/direct-issue/public-key`, body, { authorization });
  };
  for (const app of [f.first, f.second]) expect((await issue(app.anchor)).status).toBe(200);
  const outsideBody = JSON.stringify({ applicationAnchor: f.outside.anchor });
  const jws = await signAssertion(cred.key, cred.kid, outsideBody);
  const outside = await issue(f.outside.anchor, jws);
  expect([outside.status, outside.text]).toEqual([401, '{"reason":"PublicKeyDirectDenied"}']);
  // Refused before its jti was spent, as for another application's key: the same assertion is denied, not replayed.
  expect((await issue(f.outside.anchor, jws)).text).toBe('{"reason":"PublicKeyDirectDenied"}');
  expect(await sessionCount(n.infra, f.account.id)).toBe(2);
});
