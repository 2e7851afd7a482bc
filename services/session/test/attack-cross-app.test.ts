// Attacks across applications and replicas on the session host: a token signed with application A's real key but
// naming application B, revoke-all of a subject two applications of one sector share, and one revoke-all request
// replayed at the same moment on two replicas.
import { provisionApp, provisionClientKey, signClientAuth } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { decodeJwt, SignJWT } from 'jose';
import { freshSession, issueFor, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
let replica: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost();
  replica = await startSessionHost();
});
afterAll(async () => {
  await h.close();
  await replica.close();
});

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
};

/** Application A and application B in A's sector, one account with a session under each. */
async function twoAppsOneSector() {
  const a = await freshSession(h.infra);
  const b = await provisionApp(h.infra, { sectorId: a.app.sectorId });
  const underB = await issueFor(h.infra, b.anchor, { kind: 'ACCOUNT', accountId: a.account.id });
  return { a, b, underB };
}

/** The claims of `token` with `aud` changed, signed with application `signerAppId`'s real key under its kid. */
async function resigned(token: string, typ: string, aud: string, signerAppId: string): Promise<string> {
  const signer = await h.infra.keyRing.signer(signerAppId);
  if (!signer) throw new Error('no signer');
  return new SignJWT({ ...decodeJwt(token), aud })
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ })
    .sign(signer.key);
}

describe('a token of application A presented as application B', () => {
  it("signed with A's real key but naming B: refused at /refresh, /logout, /introspect, /userinfo; A's session untouched", async () => {
    const { a, b } = await twoAppsOneSector();
    const refreshAsB = await resigned(a.issued.refreshToken, TYP.refresh, b.anchor, a.app.applicationId);
    const accessAsB = await resigned(a.issued.accessToken, TYP.accountAccess, b.anchor, a.app.applicationId);

    const refresh = await post(`${h.url}/refresh`, { refreshToken: refreshAsB });
    expect([refresh.status, refresh.body?.reason]).toEqual([401, 'RefreshTokenInvalidSignature']);
    const logout = await post(`${h.url}/logout`, { refreshToken: refreshAsB });
    expect(logout.status).toBe(401);
    const introspect = await post(`${h.url}/introspect`, { accessToken: accessAsB });
    expect([introspect.status, introspect.body?.reason]).toEqual([401, 'AccessTokenInvalid']);
    const userinfo = await fetch(`${h.url}/userinfo`, { headers: { authorization: `Bearer ${accessAsB}` } });
    expect(userinfo.status).toBe(401);
    expect(await userinfo.json()).toEqual({ error: 'invalid_token' });

    // Nothing was consumed or revoked: A's genuine token still rotates.
    const row = await h.infra.db.session.findUniqueOrThrow({ where: { id: a.issued.sid } });
    expect([row.currentVersion, row.revokedAt]).toEqual([1, null]);
    expect((await post(`${h.url}/refresh`, { refreshToken: a.issued.refreshToken })).status).toBe(200);
  });

  it('revoke-all by B with the subject both applications of the sector share revokes only B’s sessions', async () => {
    const { a, b, underB } = await twoAppsOneSector();
    // Pairwise per sector: the one account has the same subject under both applications.
    expect(underB.subject).toBe(a.issued.subject);
    const ck = await provisionClientKey(h.infra, b.anchor);
    const body = JSON.stringify({ subject: a.issued.subject });
    const auth = await signClientAuth({ ...ck, iss: b.anchor, aud: 'service-session', body });
    const res = await post(`${h.url}/revoke-all`, body, { authorization: `ClientAuth ${auth}` });
    expect([res.status, res.body]).toEqual([200, { revoked: true }]);
    const status = async (accessToken: string) =>
      (await post(`${h.url}/introspect`, { accessToken })).body.status;
    expect(await status(underB.accessToken)).toBe('revoked');
    expect(await status(a.issued.accessToken)).toBe('active');

    // B's client key cannot speak for A: iss A under B's kid is a bare 401 and A stays active.
    const asA = await signClientAuth({ ...ck, iss: a.app.anchor, aud: 'service-session', body });
    const refused = await post(`${h.url}/revoke-all`, body, { authorization: `ClientAuth ${asA}` });
    expect([refused.status, refused.text]).toEqual([401, '']);
    expect(await status(a.issued.accessToken)).toBe('active');
  });
});

describe('client-auth replay across replicas', () => {
  it('one signed /revoke-all sent eight times to each of two replicas at once: exactly one is accepted', async () => {
    const s = await freshSession(h.infra);
    const ck = await provisionClientKey(h.infra, s.app.anchor);
    const body = JSON.stringify({ subject: s.issued.subject });
    const auth = await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        post(`${(i % 2 ? replica : h).url}/revoke-all`, body, { authorization: `ClientAuth ${auth}` }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(15).fill(401)]);
    for (const r of answers.filter((x) => x.status === 401)) expect(r.text).toBe('');
  });
});
