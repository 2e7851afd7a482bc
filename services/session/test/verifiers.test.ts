// Independent verifiers: tokens fetched over HTTP from the running session host verify with jose's remote JWK Set
// and with jsonwebtoken + jwks-rsa, following the spec's verification steps.
import { postJson } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import jwt from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { freshSession, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost();
});
afterAll(() => h.close());

describe('independent verification', () => {
  it('verifies refreshed tokens with jose createRemoteJWKSet and with jsonwebtoken + jwks-rsa', async () => {
    const { app, issued } = await freshSession(h.infra);
    const res = await postJson(`${h.url}/refresh`, { refreshToken: issued.refreshToken });
    expect(res.status).toBe(200);
    const jwksUrl = `${h.url}/applications/${app.anchor}/jwks.json`;
    const issuer = h.deps.issuer;

    const jwks = createRemoteJWKSet(new URL(jwksUrl));
    const access = await jwtVerify(res.body.accessToken, jwks, {
      algorithms: ['RS256'],
      audience: app.anchor,
      issuer,
      typ: TYP.accountAccess,
    });
    expect(access.payload.sub).toBe(issued.subject);
    expect(access.protectedHeader.kid).toEqual(expect.any(String));
    const refresh = await jwtVerify(res.body.refreshToken, jwks, {
      algorithms: ['RS256'],
      audience: app.anchor,
      typ: TYP.refresh,
    });
    expect(refresh.payload.rotationVersion).toBe(2);

    const client = new JwksClient({ jwksUri: jwksUrl });
    const header = JSON.parse(Buffer.from(res.body.accessToken.split('.')[0], 'base64url').toString());
    const key = await client.getSigningKey(header.kid);
    const payload = jwt.verify(res.body.accessToken, key.getPublicKey(), {
      algorithms: ['RS256'],
      audience: app.anchor,
      issuer,
    }) as jwt.JwtPayload;
    expect(payload.sub).toBe(issued.subject);
    expect(payload.sid).toBe(issued.sid);
  });

  it('keys are per application: another application key set does not verify', async () => {
    const one = await freshSession(h.infra);
    const two = await freshSession(h.infra);
    const jwksTwo = createRemoteJWKSet(new URL(`${h.url}/applications/${two.app.anchor}/jwks.json`));
    await expect(jwtVerify(one.issued.accessToken, jwksTwo, { algorithms: ['RS256'] })).rejects.toThrow();
  });

  it('never puts profile data or raw ids in tokens; subjects are pairwise per sector', async () => {
    const { app, account, issued } = await freshSession(h.infra);
    const payload = JSON.parse(Buffer.from(issued.accessToken.split('.')[1]!, 'base64url').toString());
    expect(Object.keys(payload).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(JSON.stringify(payload)).not.toContain(account.id);
    expect(JSON.stringify(payload)).not.toContain(account.email);
    // The same account in another sector gets an unrelated subject.
    const other = await freshSession(h.infra);
    const { issueFor } = await import('./support');
    const again = await issueFor(h.infra, other.app.anchor, { kind: 'ACCOUNT', accountId: account.id });
    expect(again.subject).not.toBe(issued.subject);
    // And the same sector keeps the subject stable.
    const same = await issueFor(h.infra, app.anchor, { kind: 'ACCOUNT', accountId: account.id });
    expect(same.subject).toBe(issued.subject);
  });
});
