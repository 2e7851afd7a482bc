// Authority on the session host: a refresh after the account's identity authority changed is
// AuthorizationArtifactStale, /userinfo, /claim-state and /introspect refuse tokens whose authority lapsed (workload
// or account, revoked or not yet), and /refresh serves APPLICATION sessions only.
import { issueSession } from '@svc/issuance';
import { createApplicationsStore, createSectorSubjectsStore } from '@svc/issuance/stores';
import { createAccessKey, createWorkload, revokeAccessKey, setAccountStatus } from '@svc/provisioning';
import { postJson, provisionAccount, uniqueName } from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import { freshSession, issueFor, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost({ SESSION_CACHE_MS: '0' });
});
afterAll(() => h.close());

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });
const get = async (path: string, token: string) => {
  const res = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};

describe('POST /refresh after the account authority changed', () => {
  it('is AuthorizationArtifactStale once the account was disabled and enabled again; the session is revoked', async () => {
    const s = await freshSession(h.infra);
    // What `pnpm admin account set-status` does: each status change is an identity-authority change.
    await setAccountStatus(h.infra.provisioning, s.account.id, 'DISABLED');
    const disabled = await refresh(s.issued.refreshToken);
    expect([disabled.status, disabled.body.reason]).toEqual([403, 'AccountDisabled']);
    await setAccountStatus(h.infra.provisioning, s.account.id, 'ACTIVE');
    const stale = await refresh(s.issued.refreshToken);
    expect([stale.status, stale.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
    expect(stale.body.message).toEqual(expect.any(String));
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: s.issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['REVOKED', 1]);
    expect((await refresh(s.issued.refreshToken)).body.reason).toBe('RefreshTokenRevoked');
    expect((await postJson(`${h.url}/introspect`, { accessToken: s.issued.accessToken })).body.status).toBe(
      'revoked',
    );
    // A new sign-in under the new authority refreshes normally.
    const again = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    expect((await refresh(again.refreshToken)).status).toBe(200);
  });

  it('reaches rotated versions too, and a retry inside the allowance gets no pair', async () => {
    const s = await freshSession(h.infra);
    const first = await refresh(s.issued.refreshToken);
    expect(first.status).toBe(200);
    await setAccountStatus(h.infra.provisioning, s.account.id, 'DISABLED');
    await setAccountStatus(h.infra.provisioning, s.account.id, 'ACTIVE');
    // The retry of the rotation just made (inside the default 2 s allowance) is refused like the current version.
    const retry = await refresh(s.issued.refreshToken);
    expect([retry.status, retry.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
    expect((await refresh(first.body.refreshToken)).body.reason).toBe('RefreshTokenRevoked');
  });

  it('is AuthorizationArtifactStale once `pnpm admin account link-sso` changed the governing SSO authority', async () => {
    const s = await freshSession(h.infra);
    const other = await freshSession(h.infra);
    const link = (authority: string) =>
      admin(['account', 'link-sso', '--account', s.account.id, '--authority', authority]);
    const before = await h.infra.db.account.findUniqueOrThrow({ where: { id: s.account.id } });
    expect((await link('okta-acme')).json).toEqual({ id: s.account.id, ssoAuthority: 'okta-acme' });
    // Issued before the account was governed by okta-acme: stale, and revoked.
    const stale = await refresh(s.issued.refreshToken);
    expect([stale.status, stale.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
    expect((await refresh(other.issued.refreshToken)).status).toBe(200);
    const after = await h.infra.db.account.findUniqueOrThrow({ where: { id: s.account.id } });
    expect(after.authorityVersion).toBe(before.authorityVersion + 1);

    // Issued under okta-acme: linking the same authority again changes nothing; another one makes it stale.
    const under = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    expect((await link('okta-acme')).code).toBe(0);
    const same = await refresh(under.refreshToken);
    expect(same.status).toBe(200);
    expect((await link('azure-other')).code).toBe(0);
    const moved = await refresh(same.body.refreshToken);
    expect([moved.status, moved.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
    // A sign-in under the new authority refreshes.
    const again = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    expect((await refresh(again.refreshToken)).status).toBe(200);
  }, 90_000);

  it('leaves sessions of other accounts alone', async () => {
    const a = await freshSession(h.infra);
    const b = await freshSession(h.infra);
    await setAccountStatus(h.infra.provisioning, a.account.id, 'DISABLED');
    await setAccountStatus(h.infra.provisioning, a.account.id, 'ACTIVE');
    expect((await refresh(b.issued.refreshToken)).status).toBe(200);
  });
});

describe('POST /refresh and OIDC sessions', () => {
  it('refuses a genuine refresh token of an OIDC-protocol session and changes nothing', async () => {
    const s = await freshSession(h.infra);
    const application = (await createApplicationsStore(h.infra.db).loadApplication({
      anchor: s.app.anchor,
    }))!;
    const oidc = await issueSession(h.infra.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: s.account.id },
      authMethod: 'OIDC',
      protocol: 'OIDC',
      scope: 'openid offline_access',
    });
    const res = await refresh(oidc.refreshToken);
    expect([res.status, res.body.reason]).toEqual([401, 'RefreshTokenInvalid']);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: oidc.sid } });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 1]);
    // The same account's APPLICATION session under the same application refreshes.
    expect((await refresh(s.issued.refreshToken)).status).toBe(200);
  });
});

/** An agent of a fresh account with an access key and a workload session started by that key. */
async function workloadSession() {
  const s = await freshSession(h.infra);
  const owner = await provisionAccount(h.infra);
  const { id: workloadId } = await createWorkload(
    h.infra.provisioning,
    'AGENT',
    owner.id,
    uniqueName('agent'),
  );
  const key = await createAccessKey(h.infra.provisioning, {
    anchor: s.app.anchor,
    accountId: owner.id,
    agentId: workloadId,
  });
  const credential = await h.infra.db.accessKey.findUniqueOrThrow({
    where: { identifier: key.accessKeyIdentifier },
  });
  const application = (await createApplicationsStore(h.infra.db).loadApplication({ anchor: s.app.anchor }))!;
  const issued = await issueSession(h.infra.issuance, {
    application,
    principal: { kind: 'AGENT', accountId: owner.id, workloadId, workloadGeneration: 1 },
    authMethod: 'AGENT_ACCESS_KEY_DIRECT',
    sourceCredentialId: credential.id,
  });
  return { ...s, owner, workloadId, key, application, issued };
}

describe('GET /userinfo and /claim-state with workload tokens', () => {
  const lapses: [string, (w: Awaited<ReturnType<typeof workloadSession>>) => Promise<unknown>][] = [
    [
      'the workload is revoked',
      (w) => h.infra.db.workload.update({ where: { id: w.workloadId }, data: { status: 'REVOKED' } }),
    ],
    [
      'the workload is regenerated',
      (w) => h.infra.db.workload.update({ where: { id: w.workloadId }, data: { generation: 2 } }),
    ],
    [
      'the actor subject is rotated',
      (w) =>
        createSectorSubjectsStore(h.infra.db).rotateSectorSubject(
          h.infra.issuance.subjectSecret,
          w.application.sectorId,
          {
            kind: 'AGENT',
            id: w.workloadId,
          },
          h.infra.issuance.clock,
        ),
    ],
    [
      'the source credential is revoked',
      (w) => revokeAccessKey(h.infra.provisioning, w.key.accessKeyIdentifier, h.infra.issuance.clock),
    ],
  ];

  it.each(lapses)('serves a workload token while authoritative, and refuses it once %s', async (_, lapse) => {
    const w = await workloadSession();
    for (const path of ['/userinfo', '/claim-state']) {
      const ok = await get(path, w.issued.accessToken);
      expect([ok.status, ok.body.sub]).toEqual([200, w.issued.subject]);
    }
    await lapse(w);
    for (const path of ['/userinfo', '/claim-state']) {
      const res = await get(path, w.issued.accessToken);
      expect([res.status, res.body]).toEqual([401, { error: 'invalid_token' }]);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    }
    // Introspection agrees.
    expect((await postJson(`${h.url}/introspect`, { accessToken: w.issued.accessToken })).body.status).toBe(
      'revoked',
    );
  });
});

describe('GET /userinfo and /claim-state after the account authority changed', () => {
  it('serve an account token while its authority holds, and refuse it once the authority moved, revoked or not', async () => {
    const s = await freshSession(h.infra);
    for (const path of ['/userinfo', '/claim-state'])
      expect((await get(path, s.issued.accessToken)).status).toBe(200);
    // A status change and back moves the authority; nothing has revoked the session row yet (its refresh would).
    await setAccountStatus(h.infra.provisioning, s.account.id, 'DISABLED');
    await setAccountStatus(h.infra.provisioning, s.account.id, 'ACTIVE');
    const row = await h.infra.db.session.findUniqueOrThrow({ where: { id: s.issued.sid } });
    expect(row.status).toBe('ACTIVE');
    for (const path of ['/userinfo', '/claim-state']) {
      const res = await get(path, s.issued.accessToken);
      expect([path, res.status, res.body]).toEqual([path, 401, { error: 'invalid_token' }]);
    }
    // A session issued under the new authority answers.
    const again = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    expect((await get('/userinfo', again.accessToken)).status).toBe(200);
  });
});

describe('POST /introspect after the account authority changed, before any revocation reached the session', () => {
  const introspect = async (accessToken: string) =>
    (await postJson(`${h.url}/introspect`, { accessToken })).body as {
      status: string;
      recommendedRecheckSeconds: number;
    };

  it('reports an account token revoked (terminal) once its account is disabled, and still once it is enabled again', async () => {
    const s = await freshSession(h.infra);
    expect((await introspect(s.issued.accessToken)).status).toBe('active');
    await setAccountStatus(h.infra.provisioning, s.account.id, 'DISABLED');
    // Refresh answers AccountDisabled; introspection: not active, and not worth asking again soon.
    expect(await introspect(s.issued.accessToken)).toEqual({
      status: 'revoked',
      recommendedRecheckSeconds: 3600,
    });
    await setAccountStatus(h.infra.provisioning, s.account.id, 'ACTIVE');
    expect((await introspect(s.issued.accessToken)).status).toBe('revoked');
    const row = await h.infra.db.session.findUniqueOrThrow({ where: { id: s.issued.sid } });
    expect(row.status).toBe('ACTIVE');
    // What refresh says of the same session: stale.
    expect((await refresh(s.issued.refreshToken)).body.reason).toBe('AuthorizationArtifactStale');
    // A session issued under the new authority is active.
    const again = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    expect((await introspect(again.accessToken)).status).toBe('active');
  });

  it('reports a token revoked once `pnpm admin account link-sso` moved the authority, and leaves other accounts active', async () => {
    const s = await freshSession(h.infra);
    const other = await freshSession(h.infra);
    expect(
      (await admin(['account', 'link-sso', '--account', s.account.id, '--authority', 'okta-x'])).code,
    ).toBe(0);
    expect((await introspect(s.issued.accessToken)).status).toBe('revoked');
    expect((await introspect(other.issued.accessToken)).status).toBe('active');
  }, 90_000);

  it('reports a workload token revoked once its owner account authority moved, as its refresh is stale', async () => {
    const w = await workloadSession();
    expect((await introspect(w.issued.accessToken)).status).toBe('active');
    await setAccountStatus(h.infra.provisioning, w.owner.id, 'DISABLED');
    await setAccountStatus(h.infra.provisioning, w.owner.id, 'ACTIVE');
    expect((await introspect(w.issued.accessToken)).status).toBe('revoked');
    expect((await refresh(w.issued.refreshToken)).body.reason).toBe('AuthorizationArtifactStale');
  });
});
