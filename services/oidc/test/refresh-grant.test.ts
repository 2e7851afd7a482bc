// The refresh-token grant beyond plain rotation: the statements it makes (exactly a session-host refresh's: the
// rotation read and the consuming write), a narrower `scope` narrowing the session and what the new tokens carry,
// narrowing away offline_access ending refresh (the historical token still logs out at the session host), and
// tokens_issued_total / refresh_outcomes_total counted as the session host counts its /refresh.
import { grantClaim } from '@svc/provisioning';
import { alertSeries, spawnHost } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { PASSKEY_ACR, PASSKEY_AMR } from '../src/domain/scopes';
import {
  codeFor,
  exchange,
  grantFor,
  postForm,
  provisionRp,
  type RpFixture,
  statementsDuring,
  useOidcHost,
  verifyIdToken,
} from './token-kit';

const h = useOidcHost();

function refreshWith(rp: RpFixture, refreshToken: string, scope?: string) {
  return postForm(
    h,
    { grant_type: 'refresh_token', refresh_token: refreshToken, scope },
    { basic: [rp.client.clientId, rp.clientSecret!] },
  );
}

const userinfo = async (accessToken: string) => {
  const res = await fetch(`${h.url}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = h.deps.metrics?.registry.getSingleMetric(name);
  const values = (await metric?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('refresh_token grant: statements', () => {
  it('reads the session once, in the rotation read, and writes once (no separate OIDC session read)', async () => {
    const rp = await provisionRp(h);
    const first = await exchange(h, rp, await codeFor(h, grantFor(rp)));
    // Warm the client, application and terms caches, then observe one grant.
    const second = await refreshWith(rp, first.body.refresh_token);
    expect(second.status).toBe(200);
    let third: Awaited<ReturnType<typeof refreshWith>> | undefined;
    const statements = await statementsDuring(h, async () => {
      third = await refreshWith(rp, second.body.refresh_token);
    });
    expect(third?.status).toBe(200);
    const onSessions = statements.filter((s) => /sessions/.test(s));
    expect(onSessions.map((s) => s.split(' ')[0])).toEqual(['rotation_read_v13', 'rotation_consume_v8']);
    const id = await verifyIdToken(h, third!.body.id_token, rp.client.clientId);
    expect(id.amr).toEqual([...PASSKEY_AMR]);
    expect(id.acr).toBe(PASSKEY_ACR);
    // The sign-in's sid came with the rotation read, as the first ID token stated it.
    expect(id.sid).toBe((await verifyIdToken(h, first.body.id_token, rp.client.clientId)).sid);
  });
});

describe('refresh_token grant: scope', () => {
  it('a narrower scope narrows the session: the answer, /userinfo and later grants carry it; wider is invalid_scope', async () => {
    const rp = await provisionRp(h, { claims: { email: 'OPTIONAL', firstName: 'OPTIONAL' } });
    await grantClaim(h.infra.provisioning, rp.accountId, rp.anchor, 'email', 'GRANTED');
    await grantClaim(h.infra.provisioning, rp.accountId, rp.anchor, 'firstName', 'GRANTED');
    const first = await exchange(h, rp, await codeFor(h, grantFor(rp)));
    expect(first.body.scope).toBe('openid profile email offline_access');
    expect((await userinfo(first.body.access_token)).body).toHaveProperty('given_name', 'Ada');

    // The whole granted scope, and unknown scopes (dropped, RFC 6749 3.3), change nothing.
    const grantedOnly = await refreshWith(
      rp,
      first.body.refresh_token,
      'openid profile email offline_access x',
    );
    expect(grantedOnly.status).toBe(200);
    expect(grantedOnly.body.scope).toBe('openid profile email offline_access');

    const narrowed = await refreshWith(rp, grantedOnly.body.refresh_token, 'openid email offline_access');
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('openid email offline_access');
    expect(narrowed.body).toHaveProperty('refresh_token');
    const info = await userinfo(narrowed.body.access_token);
    expect(info.status).toBe(200);
    expect(Object.keys(info.body).sort()).toEqual(['email', 'email_verified', 'sub']);
    const id = await verifyIdToken(h, narrowed.body.id_token, rp.client.clientId);
    expect(id).not.toHaveProperty('email');

    // The session keeps the narrowed scope: no (or an empty) scope parameter means the session's, and the original
    // is now wider.
    const wider = await refreshWith(rp, narrowed.body.refresh_token, 'openid profile email offline_access');
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    // openid stays (CONTRACTS: required); refused like a wider scope, and the token stays usable.
    const noOpenid = await refreshWith(rp, narrowed.body.refresh_token, 'email offline_access');
    expect(noOpenid.status).toBe(400);
    expect(noOpenid.body.error).toBe('invalid_scope');
    const again = await refreshWith(rp, narrowed.body.refresh_token, ' ');
    expect(again.status).toBe(200);
    expect(again.body.scope).toBe('openid email offline_access');
    expect(Object.keys((await userinfo(again.body.access_token)).body).sort()).toEqual([
      'email',
      'email_verified',
      'sub',
    ]);
  });

  it('narrowing away offline_access: no refresh token, no further refresh, the session stays until logout', async () => {
    const rp = await provisionRp(h);
    const first = await exchange(h, rp, await codeFor(h, grantFor(rp)));
    const last = await refreshWith(rp, first.body.refresh_token, 'openid email');
    expect(last.status).toBe(200);
    expect(last.body.scope).toBe('openid email');
    expect(last.body).not.toHaveProperty('refresh_token');
    const sid = decodeJwt(last.body.access_token).sid as string;
    expect((await userinfo(last.body.access_token)).status).toBe(200);

    // The historical token cannot refresh any more, with or without a scope; that is not reuse: nothing is revoked.
    for (const scope of [undefined, 'openid offline_access', 'openid']) {
      const refused = await refreshWith(rp, first.body.refresh_token, scope);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');
    }
    const row = await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } });
    expect(row.status).toBe('ACTIVE');
    expect(row.scope).toBe('openid email');
    expect((await userinfo(last.body.access_token)).status).toBe(200);

    // Spec, session /logout: the unexpired historical credential still revokes the access-only session.
    const session = await spawnHost('services/session/src/main.ts');
    try {
      const res = await fetch(`${session.url}/logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: first.body.refresh_token }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ revoked: true });
    } finally {
      await session.kill('SIGTERM');
    }
    expect((await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } })).status).toBe('REVOKED');
    expect((await refreshWith(rp, first.body.refresh_token, 'openid email')).body.error).toBe(
      'invalid_grant',
    );
  });
});

describe('refresh_token grant: metrics', () => {
  it('counts rotations and refusals as the session host does', async () => {
    const rp = await provisionRp(h);
    const first = await exchange(h, rp, await codeFor(h, grantFor(rp)));
    const narrow = await exchange(h, rp, await codeFor(h, grantFor(rp, { scope: 'openid offline_access' })));
    const count = {
      issued: () => counter('tokens_issued_total', { method: 'refresh' }),
      exchanged: () => counter('tokens_issued_total', { method: 'OIDC' }),
      rotated: () => counter('refresh_outcomes_total', { outcome: 'rotated' }),
      invalid: () => counter('refresh_outcomes_total', { outcome: 'RefreshTokenInvalid' }),
      // The series deploy/observability's family-compromise alert reads.
      compromised: () => {
        const series = alertSeries('RefreshFamilyCompromisedSpike');
        return counter(series.name, series.labels);
      },
      scope: () => counter('refresh_outcomes_total', { outcome: 'invalid_scope' }),
    };
    const before = Object.fromEntries(
      await Promise.all(Object.entries(count).map(async ([k, f]) => [k, await f()] as const)),
    );

    const second = await refreshWith(rp, first.body.refresh_token);
    const third = await refreshWith(rp, second.body.refresh_token, 'openid profile email offline_access x');
    const fourth = await refreshWith(rp, third.body.refresh_token, 'openid offline_access');
    expect([second.status, third.status, fourth.status]).toEqual([200, 200, 200]);
    expect((await refreshWith(rp, 'not.a.token')).body.error).toBe('invalid_grant');
    expect((await refreshWith(rp, narrow.body.refresh_token, 'openid email offline_access')).body.error).toBe(
      'invalid_scope',
    );
    // The first version again, three rotations later: reuse, which revokes the family.
    expect((await refreshWith(rp, first.body.refresh_token)).body.error).toBe('invalid_grant');

    expect(await count.issued()).toBe(before.issued! + 3);
    expect(await count.rotated()).toBe(before.rotated! + 3);
    expect(await count.invalid()).toBe(before.invalid! + 1);
    expect(await count.scope()).toBe(before.scope! + 1);
    expect(await count.compromised()).toBe(before.compromised! + 1);
    expect(await count.exchanged()).toBe(before.exchanged);
  });
});
