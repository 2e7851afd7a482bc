// Token revocation (RFC 7009) at the OIDC host's revocation_endpoint: a kit.refresh or access token of the presenting
// client ends its session at once, on every replica (the session host's cached row is dropped by the published
// change, not by its cache lifetime); anything else answers the same 200 and changes nothing; the client
// authenticates as at /token.
import { spawnHost } from '@svc/testkit';
import { decodeJwt } from 'jose';
import * as kit from './token-kit';

const h = kit.useOidcHost();

const revoke = (rp: kit.RpFixture, token: string, extra: Record<string, string> = {}) =>
  kit.postForm(h, kit.tokenFields(rp, { token, ...extra }), kit.authOf(rp), '/revoke');

async function signedIn(rp: kit.RpFixture) {
  const res = await kit.exchange(h, rp, await kit.codeFor(h, kit.grantFor(rp)));
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string; id_token: string };
}

const statusOf = async (sid: string) =>
  (await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } })).status;

describe('revocation_endpoint', () => {
  it('is in discovery', async () => {
    const meta = await (await fetch(`${h.url}/.well-known/openid-configuration`)).json();
    expect(meta.revocation_endpoint).toBe(`${h.url}/revoke`);
  });

  it('a kit.refresh token ends its session at once on a session-host replica that cached it', async () => {
    const rp = await kit.provisionRp(h);
    const tokens = await signedIn(rp);
    const sid = decodeJwt(tokens.access_token).sid as string;
    // A session host whose cached rows would live a minute: only the published change can drop this one.
    const session = await spawnHost('services/session/src/main.ts', { SESSION_CACHE_MS: '60000' });
    try {
      const introspect = async () =>
        (
          await (
            await fetch(`${session.url}/introspect`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ accessToken: tokens.access_token }),
            })
          ).json()
        ).status;
      expect(await introspect()).toBe('active');
      const res = await revoke(rp, tokens.refresh_token, { token_type_hint: 'refresh_token' });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await statusOf(sid)).toBe('REVOKED');
      // Pub/sub is asynchronous: wait on the condition, never a fixed sleep (well under the 60 s cache).
      const deadline = Date.now() + 5000;
      let seen = await introspect();
      while (seen !== 'revoked' && Date.now() < deadline) seen = await introspect();
      expect(seen).toBe('revoked');
    } finally {
      await session.kill('SIGTERM');
    }
    expect((await kit.refresh(h, rp, tokens.refresh_token)).body.error).toBe('invalid_grant');
    const info = await fetch(`${h.url}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    // Idempotent.
    expect((await revoke(rp, tokens.refresh_token)).status).toBe(200);
  });

  it('an access token ends its session too (whatever the hint says)', async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'client_secret_post' });
    const tokens = await signedIn(rp);
    const sid = decodeJwt(tokens.access_token).sid as string;
    const res = await revoke(rp, tokens.access_token, { token_type_hint: 'refresh_token' });
    expect(res.status).toBe(200);
    expect(await statusOf(sid)).toBe('REVOKED');
    expect((await kit.refresh(h, rp, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it("another client's token, a forged or unknown token: 200 and nothing changes", async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'none' });
    const other = await kit.provisionRp(h);
    const tokens = await signedIn(other);
    const sid = decodeJwt(tokens.access_token).sid as string;
    for (const token of [
      tokens.refresh_token,
      tokens.access_token,
      tokens.id_token,
      `${tokens.refresh_token}x`,
      'x',
    ]) {
      const res = await revoke(rp, token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
    }
    expect(await statusOf(sid)).toBe('ACTIVE');
    expect((await kit.refresh(h, other, tokens.refresh_token)).status).toBe(200);
  });

  it('authenticates the client as /token does; a missing token is invalid_request', async () => {
    const rp = await kit.provisionRp(h);
    const tokens = await signedIn(rp);
    const sid = decodeJwt(tokens.access_token).sid as string;
    const wrong = await kit.postForm(
      h,
      { token: tokens.refresh_token },
      { basic: [rp.client.clientId, 'oidcs_no'] },
      '/revoke',
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const none = await kit.postForm(h, { token: tokens.refresh_token }, undefined, '/revoke');
    expect(none.status).toBe(401);
    // A confidential client may not present itself as public (client_id alone).
    const asPublic = await kit.postForm(
      h,
      { token: tokens.refresh_token, client_id: rp.client.clientId },
      undefined,
      '/revoke',
    );
    expect(asPublic.status).toBe(401);
    expect(await statusOf(sid)).toBe('ACTIVE');
    const missing = await kit.postForm(h, {}, kit.authOf(rp), '/revoke');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });
});
