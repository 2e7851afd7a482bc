// POST /errand (claims view and an errand when the gate owes one; empty 401/403 failures) and the rate limits
// of access-key and public-key, shared by two replicas through Redis.
import { setAccountStatus, setAppStatus, setClaims } from '@svc/provisioning';
import { postJson, provisionApp, uniqueName } from '@svc/testkit';
import {
  accessKeyFor,
  publicKeyFor,
  settledAccount,
  signAssertion,
  useNativeHost,
  withTwoReplicas,
} from './helpers';

const n = useNativeHost();

async function issued() {
  const app = await provisionApp(n.infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const account = await settledAccount(n.infra);
  const key = await accessKeyFor(n.infra, app.anchor, account.id);
  const res = await postJson(`${n.host.url}/direct-issue/access-key`, {
    applicationAnchor: app.anchor,
    ...key,
    workloadId: undefined,
  });
  expect(res.status).toBe(200);
  return {
    app,
    account,
    accessToken: res.body.accessToken as string,
    refreshToken: res.body.refreshToken as string,
  };
}

const errand = (body: unknown) => postJson(`${n.host.url}/errand`, body as object);

describe('POST /errand', () => {
  test('nothing owed: the view and errand null', async () => {
    const f = await issued();
    const res = await errand({ accessToken: f.accessToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.errand).toBeNull();
    expect(Object.keys(res.body.claims)).toHaveLength(5);
  });

  test('a claim newly REQUIRED: an errand to complete it in the browser', async () => {
    const f = await issued();
    await setClaims(n.infra.provisioning, f.app.anchor, { firstName: 'REQUIRED' });
    const res = await errand({ accessToken: f.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.claims.firstName).toEqual({ requirement: 'REQUIRED', state: 'UNKNOWN' });
    expect(res.body.errand.errandKey).toMatch(/^ernd_/);
    expect(Object.keys(res.body.errand).sort()).toEqual(['errandKey', 'expiresAt', 'url']);
  });

  test('missing, malformed, forged or inactive tokens are an empty 401', async () => {
    const f = await issued();
    const [h, p, s] = f.accessToken.split('.');
    const forged = `${h}.${p}.${s!.slice(0, -4)}AAAA`;
    for (const body of [
      {},
      { accessToken: 'garbage' },
      { accessToken: 7 },
      { accessToken: forged },
      { accessToken: f.refreshToken },
    ]) {
      const res = await errand(body);
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
    }
    await n.infra.db.session.updateMany({ where: { accountId: f.account.id }, data: { status: 'REVOKED' } });
    const res = await errand({ accessToken: f.accessToken });
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
  });

  test('an application or account disabled is an empty 403', async () => {
    const f1 = await issued();
    await setAppStatus(n.infra.provisioning, f1.app.anchor, 'DISABLED');
    const r1 = await errand({ accessToken: f1.accessToken });
    expect(r1.status).toBe(403);
    expect(r1.text).toBe('');
    const f2 = await issued();
    await setAccountStatus(n.infra.provisioning, f2.account.id, 'DISABLED');
    const r2 = await errand({ accessToken: f2.accessToken });
    expect(r2.status).toBe(403);
    expect(r2.text).toBe('');
  });

  test('a non-JSON body is InvalidBody', async () => {
    const res = await postJson(`${n.host.url}/errand`, 'nope');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidBody' });
  });
});

describe('rate limits shared across replicas', () => {
  test('per credential on access-key: the third attempt on either replica is 429 with Retry-After', async () => {
    const prefix = uniqueName('rl');
    const limits = { prefix, addressPoints: 100, credentialPoints: 2, windowSeconds: 60 };
    await withTwoReplicas(n.infra, { rateLimit: limits }, async (r1, r2) => {
      const app = await provisionApp(n.infra, { methods: ['ACCESS_KEY_DIRECT'] });
      const account = await settledAccount(n.infra);
      const key = await accessKeyFor(n.infra, app.anchor, account.id);
      const body = {
        applicationAnchor: app.anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      };
      expect((await postJson(`${r1.url}/direct-issue/access-key`, body)).status).toBe(200);
      expect((await postJson(`${r2.url}/direct-issue/access-key`, body)).status).toBe(200);
      const third = await postJson(`${r1.url}/direct-issue/access-key`, body);
      expect(third.status).toBe(429);
      expect(third.body).toEqual({ reason: 'TooManyAttempts' });
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another credential from the same address still passes.
      const other = await accessKeyFor(n.infra, app.anchor, account.id);
      const ok = await postJson(`${r2.url}/direct-issue/access-key`, {
        ...body,
        ...other,
        workloadId: undefined,
      });
      expect(ok.status).toBe(200);
    });
  });

  test('per client address on public-key, across kids and replicas', async () => {
    const limits = { prefix: uniqueName('rl'), addressPoints: 3, credentialPoints: 100, windowSeconds: 60 };
    await withTwoReplicas(n.infra, { rateLimit: limits }, async (r1, r2) => {
      const app = await provisionApp(n.infra, { methods: ['PUBLIC_KEY_DIRECT'] });
      const account = await settledAccount(n.infra);
      const body = JSON.stringify({ applicationAnchor: app.anchor });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const cred = await publicKeyFor(n.infra, app.anchor, account.id);
        const jws = await signAssertion(cred.key, cred.kid, body);
        const res = await postJson(`${(i % 2 ? r2 : r1).url}/direct-issue/public-key`, body, {
          authorization: `PublicKey ${jws}`,
        });
        statuses.push(res.status);
        if (res.status === 429) expect(res.headers.get('retry-after')).toBeTruthy();
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });
  });
});
