// Black-box provisioning flow through the real CLI (runCli, each run with its own connections, as separate
// processes would have) against the real test database and Redis.
import { createHash, randomUUID } from 'node:crypto';
import { createAgreementsStore, createSectorSubjectsStore } from '@svc/issuance/stores';
import { KEY_CHANGE_CHANNEL } from '@svc/keyring';
import { createRedis } from '@svc/platform';
import { testUrls, uniqueName, useInfra, waitUntil } from '@svc/testkit';
import { newJti, newSid } from '@svc/token-core';
import { exportJWK, generateKeyPair } from 'jose';
import { jsonFile, ok } from './run-admin';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BIG_STEAM_ID = '9007199254740993'; // 2^53 + 1: lost if anything goes through a JS number

const infra = useInfra();
const s: Record<string, string> = {};

async function ed25519JwkFile(): Promise<string> {
  const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return jsonFile(await exportJWK(publicKey), 'public.jwk.json');
}

describe('pnpm admin: full provisioning flow', () => {
  it('creates an organization, a sector and an application with two names and a callback domain', async () => {
    s.org = (await ok(['org', 'create', '--name', uniqueName('Org')])).id;
    expect(s.org).toMatch(UUID);
    s.sector = (await ok(['sector', 'create', '--org', s.org!, '--name', 'Games'])).id;
    expect(s.sector).toMatch(UUID);
    s.anchor = uniqueName('admin');
    const created = await ok([
      'app',
      'create',
      '--sector',
      s.sector!,
      '--anchor',
      s.anchor,
      '--name',
      'en-US=Admin Test Game',
      '--name',
      'zh-CN=管理测试游戏',
      '--callback-domain',
      'Game.Example.com',
    ]);
    expect(created).toEqual({ applicationAnchor: s.anchor });
    const app = await infra.db.application.findUniqueOrThrow({ where: { anchor: s.anchor } });
    expect(app).toMatchObject({
      status: 'ACTIVE',
      names: { 'en-US': 'Admin Test Game', 'zh-CN': '管理测试游戏' },
      defaultLocale: 'en-US',
      callbackDomains: ['game.example.com'],
    });
    s.appId = app.id;
    const keys = await infra.db.signingKey.findMany({ where: { applicationId: app.id } });
    expect(keys.map((k) => k.status)).toEqual(['ACTIVE']);
    s.firstKid = keys[0]!.kid;
  }, 60_000);

  it('adds authentication rules (with TTLs and int64 platform app ids), a return rule and claims', async () => {
    const addRule = (method: string, ...flags: string[]) =>
      ok(['app', 'add-rule', '--app', s.anchor!, '--method', method, ...flags]);
    // Independent commands run at once, each with its own connections, as two operators might.
    const [direct, ticket, ret, , lastClaims] = await Promise.all([
      addRule('ACCESS_KEY_DIRECT', '--access-ttl', '600', '--refresh-ttl', '86400'),
      addRule('PLATFORM_TICKET', '--platform-app-id', '480', '--platform-app-id', BIG_STEAM_ID),
      ok(['app', 'add-return-rule', '--app', s.anchor!, '--method', 'DEVICE_CODE']),
      ok(['app', 'set-claims', '--app', s.anchor!, '--email', 'REQUIRED']),
      ok(['app', 'set-claims', '--app', s.anchor!, '--firstName', 'OPTIONAL']),
    ]);
    for (const r of [direct, ticket]) expect(Object.keys(r)).toEqual(['ruleId']);
    const rules = await infra.db.authenticationRule.findMany({ where: { applicationId: s.appId! } });
    const byMethod = Object.fromEntries(rules.map((r) => [r.method, r]));
    expect(byMethod.ACCESS_KEY_DIRECT).toMatchObject({
      id: direct.ruleId,
      accessTtl: 600,
      refreshTtl: 86400,
    });
    expect(byMethod.PLATFORM_TICKET).toMatchObject({ id: ticket.ruleId, accessTtl: null, refreshTtl: null });
    expect(byMethod.PLATFORM_TICKET!.platformAppIds).toEqual([480n, BigInt(BIG_STEAM_ID)]);

    expect(await infra.db.returnRule.findUnique({ where: { id: ret.ruleId } })).toMatchObject({
      method: 'DEVICE_CODE',
      enabled: true,
    });

    // Two set-claims racing on different claims: neither change is lost.
    expect(Object.keys(lastClaims.claims)).toEqual([
      'email',
      'firstName',
      'lastName',
      'staticAvatar',
      'animatedAvatar',
    ]);
    const expectedClaims = {
      email: 'REQUIRED',
      firstName: 'OPTIONAL',
      lastName: 'OFF',
      staticAvatar: 'OFF',
      animatedAvatar: 'OFF',
    };

    // app show prints the big platform app id exactly (as a decimal string).
    const shown = (await ok(['app', 'show', '--app', s.anchor!])).application;
    expect(
      shown.rules.find((r: { method: string }) => r.method === 'PLATFORM_TICKET').platformAppIds,
    ).toEqual(['480', BIG_STEAM_ID]);
    expect(shown).toMatchObject({
      status: 'ACTIVE',
      claims: expectedClaims,
      callbackDomains: ['game.example.com'],
      kids: [s.firstKid],
    });
  }, 60_000);

  it('registers a client key from an Ed25519 public JWK file', async () => {
    const { kid } = await ok([
      'app',
      'add-client-key',
      '--app',
      s.anchor!,
      '--jwk-file',
      await ed25519JwkFile(),
    ]);
    expect(kid).toMatch(/^cak_/);
    expect(await infra.db.clientKey.findUnique({ where: { kid } })).toMatchObject({
      applicationId: s.appId,
      status: 'ACTIVE',
      jwk: { kty: 'OKP', crv: 'Ed25519' },
    });
  }, 60_000);

  it('creates an account, grants a claim, publishes basic terms and records acceptance', async () => {
    const email = `${uniqueName('user')}@example.test`;
    s.account = (
      await ok(['account', 'create', '--email', email, '--given-name', 'Ada', '--family-name', 'Lovelace'])
    ).id;
    expect(s.account).toMatch(UUID);

    const granted = await ok([
      'account',
      'grant',
      '--account',
      s.account!,
      '--app',
      s.anchor!,
      '--claim',
      'email',
      '--state',
      'GRANTED',
    ]);
    expect(granted.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(granted.claims.firstName).toEqual({ requirement: 'OPTIONAL', state: 'UNKNOWN' });

    // The example file is idempotent: publishing it again does not make every account accept anew.
    const published = await ok(['terms', 'publish', '--file', 'tools/admin/src/example-terms.json']);
    expect(published.revision).toBeGreaterThanOrEqual(1);
    const doc = await infra.db.agreementDocument.findUniqueOrThrow({
      where: { documentType_revision: { documentType: 'BASIC_TERMS', revision: published.revision } },
    });
    // biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON, checked by the assertions
    const body = doc.body as any;
    for (const locale of ['en-US', 'zh-CN']) {
      // contentSha256 is the hash of the document exactly as the hosts serve it (read back from the database).
      const served = JSON.stringify(body.locales[locale].document);
      expect(body.locales[locale].contentSha256).toBe(
        createHash('sha256').update(served, 'utf8').digest('hex'),
      );
    }
    expect(body.locales['zh-CN'].document.title).toBe('基本条款');

    const accepted = await ok(['account', 'accept-terms', '--account', s.account!]);
    const current = await createAgreementsStore(infra.db).currentTerms();
    expect(accepted.revision).toBeGreaterThanOrEqual(published.revision);
    expect(accepted.revision).toBeLessThanOrEqual(current!.revision);
    expect(
      await infra.db.agreementReceipt.findFirst({
        where: { accountId: s.account!, revision: accepted.revision },
      }),
    ).toMatchObject({ channel: 'ADMIN' });
  }, 60_000);

  it('creates an agent and an automation, an access key for the agent (then revokes it) and a public key', async () => {
    const [agent, automation] = await Promise.all([
      ok(['agent', 'create', '--account', s.account!, '--name', 'Build bot']),
      ok(['automation', 'create', '--account', s.account!, '--name', 'Nightly sync']),
    ]);
    s.agent = agent.id;
    s.automation = automation.id;
    expect([s.agent, s.automation]).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);

    const key = await ok([
      'access-key',
      'create',
      '--app',
      s.anchor!,
      '--account',
      s.account!,
      '--agent',
      s.agent!,
    ]);
    expect(key.accessKeyIdentifier).toMatch(
      /^acs_k_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(key.accessKeySecret).toMatch(/^acs_t_[0-9a-f]{64}$/);
    const row = await infra.db.accessKey.findUniqueOrThrow({
      where: { identifier: key.accessKeyIdentifier },
    });
    // Only a hash of the secret is stored.
    expect(row.secretHash).toBe(createHash('sha256').update(key.accessKeySecret).digest('hex'));
    expect(row).toMatchObject({ workloadId: s.agent, accountId: s.account, status: 'ACTIVE' });

    expect(await ok(['access-key', 'revoke', '--id', key.accessKeyIdentifier])).toEqual({ revoked: true });
    expect(
      await infra.db.accessKey.findUniqueOrThrow({ where: { identifier: key.accessKeyIdentifier } }),
    ).toMatchObject({ status: 'REVOKED', revokedAt: expect.any(Date) });

    const pk = await ok([
      'public-key',
      'register',
      '--app',
      s.anchor!,
      '--account',
      s.account!,
      '--automation',
      s.automation!,
      '--jwk-file',
      await ed25519JwkFile(),
    ]);
    expect(pk.kid).toMatch(/^pky_/);
    expect(await infra.db.publicKey.findUnique({ where: { kid: pk.kid } })).toMatchObject({
      workloadId: s.automation,
      applicationId: s.appId,
      sectorId: null,
    });
  }, 60_000);

  it('makes credentials for a whole sector (--sector): the same output, applicability fixed for good', async () => {
    const key = await ok(['access-key', 'create', '--sector', s.sector!, '--account', s.account!]);
    expect(Object.keys(key).sort()).toEqual(['accessKeyIdentifier', 'accessKeySecret']);
    const row = await infra.db.accessKey.findUniqueOrThrow({
      where: { identifier: key.accessKeyIdentifier },
    });
    expect(row).toMatchObject({ applicationId: null, sectorId: s.sector, accountId: s.account });
    const pk = await ok([
      'public-key',
      'register',
      '--sector',
      s.sector!,
      '--account',
      s.account!,
      '--jwk-file',
      await ed25519JwkFile(),
    ]);
    expect(Object.keys(pk)).toEqual(['kid']);
    expect(await infra.db.publicKey.findUnique({ where: { kid: pk.kid } })).toMatchObject({
      applicationId: null,
      sectorId: s.sector,
    });
    // Immutable after creation: the database refuses to move or widen a credential, even by hand.
    await expect(
      infra.db.accessKey.update({ where: { id: row.id }, data: { applicationId: s.appId, sectorId: null } }),
    ).rejects.toThrow();
    await expect(
      infra.db.publicKey.update({ where: { kid: pk.kid }, data: { sectorId: randomUUID() } }),
    ).rejects.toThrow();
    expect(await infra.db.accessKey.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      applicationId: null,
      sectorId: s.sector,
    });
  }, 60_000);

  it('rotates keys (the old kid stays published), revokes one (it leaves at once) and tells hosts over Redis', async () => {
    const subscriber = createRedis(testUrls.redis);
    const heard: string[] = [];
    await subscriber.subscribe(KEY_CHANGE_CHANNEL);
    subscriber.on('message', (_c: string, m: string) => heard.push(m));
    try {
      // Without --now the new key is prepublished: published at once, signing only after the JWK Set cache
      // lifetime (max-age 300 s + the hosts' 30 s key cache by default).
      const before = Date.now();
      const rotated = await ok(['keys', 'rotate', '--app', s.anchor!]);
      expect(rotated.warning).toBeUndefined();
      expect(rotated.kids).toHaveLength(2);
      expect(rotated.kids).toContain(s.firstKid);
      const next = await infra.db.signingKey.findFirstOrThrow({
        where: { applicationId: s.appId!, status: 'NEXT' },
      });
      expect(rotated.kids).toContain(next.kid);
      const waitMs = next.activatesAt!.getTime() - next.createdAt.getTime();
      expect(waitMs).toBe(330_000);
      expect(next.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      const signer = await infra.db.signingKey.findFirstOrThrow({
        where: { applicationId: s.appId!, status: 'ACTIVE' },
      });
      expect(signer.kid).toBe(s.firstKid);
      // --now: the waiting key signs at once; the old one stays published.
      const now = await ok(['keys', 'rotate', '--app', s.anchor!, '--now']);
      expect(now.kids.sort()).toEqual([next.kid, s.firstKid].sort());
      const active = await infra.db.signingKey.findFirstOrThrow({
        where: { applicationId: s.appId!, status: 'ACTIVE' },
      });
      expect(active.kid).toBe(next.kid);

      const revoked = await ok(['keys', 'revoke', '--app', s.anchor!, '--kid', s.firstKid!]);
      expect(revoked.kids).toEqual([active.kid]);
      expect((await ok(['app', 'show', '--app', s.anchor!])).application.kids).toEqual([active.kid]);
      await waitUntil(async () => heard.filter((m) => m === s.appId).length >= 3, 3000, 25);
    } finally {
      await subscriber.quit();
    }
  }, 60_000);

  it('lists the sessions of a subject, newest first', async () => {
    const subject = await createSectorSubjectsStore(infra.db).resolveSectorSubject(
      infra.issuance.subjectSecret,
      s.sector!,
      {
        kind: 'ACCOUNT',
        id: s.account!,
      },
    );
    const sid = newSid();
    const expiresAt = new Date(Date.now() + 86_400_000);
    await infra.db.session.create({
      data: {
        id: sid,
        applicationId: s.appId!,
        accountId: s.account!,
        subject,
        authMethod: 'ACCESS_KEY_DIRECT',
        accessTtl: 600,
        refreshTtl: 86_400,
        currentJti: newJti(),
        expiresAt,
        sweepAfter: expiresAt,
      },
    });
    const listed = await ok(['sessions', 'list', '--app', s.anchor!, '--subject', subject]);
    expect(listed.sessions).toEqual([
      expect.objectContaining({
        sid,
        status: 'active',
        protocol: 'APPLICATION',
        authMethod: 'ACCESS_KEY_DIRECT',
        rotationVersion: 1,
        expiresAt: expiresAt.toISOString(),
      }),
    ]);
    // An unknown subject is simply an empty list.
    expect(await ok(['sessions', 'list', '--app', s.anchor!, '--subject', randomUUID()])).toEqual({
      sessions: [],
    });
  }, 60_000);

  it('changes the status of the application, account, sector and organization', async () => {
    const [app1, account, sector, org] = await Promise.all([
      ok(['app', 'set-status', '--app', s.anchor!, '--status', 'SUSPENDED']),
      ok(['account', 'set-status', '--account', s.account!, '--status', 'DISABLED']),
      ok(['sector', 'set-status', '--sector', s.sector!, '--status', 'DISABLED']),
      ok(['org', 'set-status', '--org', s.org!, '--status', 'DISABLED']),
    ]);
    expect(app1).toEqual({ applicationAnchor: s.anchor, status: 'SUSPENDED' });
    expect(account).toEqual({ id: s.account, status: 'DISABLED' });
    expect(sector).toEqual({ id: s.sector, status: 'DISABLED' });
    expect(org).toEqual({ id: s.org, status: 'DISABLED' });
    const app = await infra.db.application.findUniqueOrThrow({
      where: { anchor: s.anchor! },
      include: { sector: { include: { organization: true } } },
    });
    expect([app.status, app.sector.status, app.sector.organization.status]).toEqual([
      'SUSPENDED',
      'DISABLED',
      'DISABLED',
    ]);
    expect((await infra.db.account.findUniqueOrThrow({ where: { id: s.account! } })).status).toBe('DISABLED');
  }, 60_000);
});
