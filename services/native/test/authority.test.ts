// Authority on the native host: /errand refuses a workload token whose principal, generation, actor subject or
// source credential is no longer authoritative (the rule introspection applies), and public-key direct issue
// answers AuthorizationArtifactStale when the account's authority changes during the attempt. The mid-attempt
// window is reached with a real lock, not a hook: the test holds the pairwise subject the attempt creates between
// its one read and its session insert (testkit's holdSubjectCreation).
import { createPrisma, DEFAULT_DB_BOUNDS } from '@svc/db';
import { createApplicationsStore, createSectorSubjectsStore } from '@svc/issuance/stores';
import { revokeAccessKey, setAccountStatus } from '@svc/provisioning';
import {
  postJson,
  provisionApp,
  type RunningTestHost,
  testUrls,
  uniqueName,
  useInfra,
  whileSubjectHeld,
} from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  accessKeyFor,
  bumpAuthority,
  publicKeyFor,
  sessionCount,
  settledAccount,
  signAssertion,
  startNative,
} from './helpers';

/** The host's own connections carry this application_name, so the test can tell them from any other backend. */
const HOST_CONNECTIONS = uniqueName('native-authority');
const infra = useInfra();
// The attempt waits on the test's table lock as long as the test takes: no 2 s statement bound for it.
const hostInfra = useInfra(() => {
  const url = new URL(testUrls.database);
  url.searchParams.set('application_name', HOST_CONNECTIONS);
  return { over: createPrisma(url.toString(), { ...DEFAULT_DB_BOUNDS, statementTimeoutMs: 60_000 }) };
});
let host: RunningTestHost;

beforeAll(async () => {
  host = await startNative(hostInfra);
});
afterAll(async () => {
  await host.close();
  await hostInfra.db.$disconnect();
});

describe('POST /errand with workload tokens', () => {
  async function agentToken() {
    const app = await provisionApp(infra, { methods: ['AGENT_ACCESS_KEY_DIRECT'] });
    const account = await settledAccount(infra);
    const key = await accessKeyFor(infra, app.anchor, account.id, 'AGENT');
    const res = await postJson(`${host.url}/direct-issue/access-key`, {
      applicationAnchor: app.anchor,
      accessKeyIdentifier: key.accessKeyIdentifier,
      accessKeySecret: key.accessKeySecret,
    });
    expect(res.status).toBe(200);
    expect(decodeProtectedHeader(res.body.accessToken).typ).toBe(TYP.workloadAccess);
    return { app, account, key, workloadId: key.workloadId!, accessToken: res.body.accessToken as string };
  }
  type Agent = Awaited<ReturnType<typeof agentToken>>;

  const lapses: [string, (a: Agent) => Promise<unknown>][] = [
    [
      'the workload is revoked',
      (a) => infra.db.workload.update({ where: { id: a.workloadId }, data: { status: 'REVOKED' } }),
    ],
    [
      'the workload is regenerated',
      (a) => infra.db.workload.update({ where: { id: a.workloadId }, data: { generation: 2 } }),
    ],
    [
      'the actor subject is rotated',
      async (a) => {
        const application = (await createApplicationsStore(infra.db).loadApplication({
          anchor: a.app.anchor,
        }))!;
        await createSectorSubjectsStore(infra.db).rotateSectorSubject(
          infra.issuance.subjectSecret,
          application.sectorId,
          {
            kind: 'AGENT',
            id: a.workloadId,
          },
          infra.issuance.clock,
        );
      },
    ],
    // What `pnpm admin access-key revoke` does.
    [
      'the source credential is revoked',
      (a) => revokeAccessKey(infra.provisioning, a.key.accessKeyIdentifier, infra.issuance.clock),
    ],
  ];

  test.each(lapses)('answers while authoritative, and an empty 401 once %s', async (_, lapse) => {
    const a = await agentToken();
    const ok = await postJson(`${host.url}/errand`, { accessToken: a.accessToken });
    expect([ok.status, ok.body.errand]).toEqual([200, null]);
    await lapse(a);
    const res = await postJson(`${host.url}/errand`, { accessToken: a.accessToken });
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
  });
});

describe('POST /errand after the account authority moved, before any revocation reached the session', () => {
  // The session row stays ACTIVE under its old authority version (the change raced its creation, or its revocation
  // has not run): /introspect says revoked and /userinfo answers 401, so /errand must refuse it too.
  const lapses: [string, (accountId: string) => Promise<unknown>][] = [
    // What removing a passkey or resetting an identifier does to the account: a new authority version.
    ['a credential of the account changed', (accountId) => bumpAuthority(infra, accountId)],
    // What `pnpm admin account set-status` does, twice: ACTIVE again, under a new authority.
    [
      'the account was disabled and enabled again',
      async (accountId) => {
        await setAccountStatus(infra.provisioning, accountId, 'DISABLED');
        await setAccountStatus(infra.provisioning, accountId, 'ACTIVE');
      },
    ],
  ];

  test.each(lapses)('answers while the authority holds, and an empty 401 once %s', async (_, lapse) => {
    const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
    const account = await settledAccount(infra);
    const key = await accessKeyFor(infra, app.anchor, account.id);
    const issued = await postJson(`${host.url}/direct-issue/access-key`, {
      applicationAnchor: app.anchor,
      accessKeyIdentifier: key.accessKeyIdentifier,
      accessKeySecret: key.accessKeySecret,
    });
    expect(issued.status).toBe(200);
    const ok = await postJson(`${host.url}/errand`, { accessToken: issued.body.accessToken });
    expect([ok.status, ok.body.errand]).toEqual([200, null]);
    await lapse(account.id);
    const sid = decodeJwt(issued.body.accessToken).sid as string;
    expect((await infra.db.session.findUniqueOrThrow({ where: { id: sid } })).status).toBe('ACTIVE');
    const res = await postJson(`${host.url}/errand`, { accessToken: issued.body.accessToken });
    expect([res.status, res.text]).toEqual([401, '']);
  });
});

describe('POST /direct-issue/public-key', () => {
  test('the account authority changing during the attempt is AuthorizationArtifactStale (409)', async () => {
    const app = await provisionApp(infra, { methods: ['PUBLIC_KEY_DIRECT'] });
    const account = await settledAccount(infra);
    const cred = await publicKeyFor(infra, app.anchor, account.id);
    const body = JSON.stringify({ applicationAnchor: app.anchor });
    const jws = await signAssertion(cred.key, cred.kid, body);
    // The attempt is held in PostgreSQL after its one read (key, workload, authority, snapshot) and before its
    // session insert, while an operator changes the account.
    const res = await whileSubjectHeld(
      infra,
      app.sectorId,
      { kind: 'ACCOUNT', id: account.id },
      () => postJson(`${host.url}/direct-issue/public-key`, body, { authorization: `PublicKey ${jws}` }),
      async () => {
        // What `pnpm admin account set-status` does, twice: the account is ACTIVE again, under a new authority.
        await setAccountStatus(infra.provisioning, account.id, 'DISABLED');
        await setAccountStatus(infra.provisioning, account.id, 'ACTIVE');
      },
    );
    expect([res.status, res.body]).toEqual([409, { reason: 'AuthorizationArtifactStale' }]);
    expect(await sessionCount(infra, account.id)).toBe(0);
    // The whole exchange again, with a freshly signed assertion, succeeds under the new authority.
    const again = await postJson(`${host.url}/direct-issue/public-key`, body, {
      authorization: `PublicKey ${await signAssertion(cred.key, cred.kid, body)}`,
    });
    expect(again.status).toBe(200);
    expect(decodeJwt(again.body.accessToken).aud).toBe(app.anchor);
  });
});
