// Brute force of access keys: wrong secrets raced in parallel over two replicas spend exactly the credential's
// points (the count and the comparison are one Redis operation), the right secret is then refused too, and a
// forged X-Forwarded-For (TRUST_PROXY unset) is not a new client address.
import { postJson, provisionApp, uniqueName } from '@svc/testkit';
import { accessKeyFor, settledAccount, startNative, useNativeHost, withTwoReplicas } from './helpers';

const n = useNativeHost();

const wrongSecret = (i: number) => `acs_t_${i.toString(16).padStart(64, '0')}`;

describe('access-key brute force', () => {
  test('thirty wrong secrets at once over two replicas: exactly five are judged, the rest and the right one are 429', async () => {
    const limits = { prefix: uniqueName('rl'), addressPoints: 1000, credentialPoints: 5, windowSeconds: 60 };
    await withTwoReplicas(n.infra, { rateLimit: limits }, async (r1, r2) => {
      const app = await provisionApp(n.infra, { methods: ['ACCESS_KEY_DIRECT'] });
      const account = await settledAccount(n.infra);
      const key = await accessKeyFor(n.infra, app.anchor, account.id);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          postJson(`${(i % 2 ? r2 : r1).url}/direct-issue/access-key`, {
            applicationAnchor: app.anchor,
            accessKeyIdentifier: key.accessKeyIdentifier,
            accessKeySecret: wrongSecret(i),
          }),
        ),
      );
      const reasons = answers.map((r) => `${r.status} ${r.body?.reason}`).sort();
      expect(reasons).toEqual([
        ...Array(5).fill('401 AccessKeyDirectDenied'),
        ...Array(25).fill('429 TooManyAttempts'),
      ]);
      const right = await postJson(`${r1.url}/direct-issue/access-key`, {
        applicationAnchor: app.anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      });
      expect([right.status, right.body?.reason]).toEqual([429, 'TooManyAttempts']);
    });
  });

  test('a forged X-Forwarded-For per request does not reset the per-address limit', async () => {
    const limits = { prefix: uniqueName('rl'), addressPoints: 3, credentialPoints: 1000, windowSeconds: 60 };
    const host = await startNative(n.infra, { rateLimit: limits });
    try {
      const app = await provisionApp(n.infra, { methods: ['ACCESS_KEY_DIRECT'] });
      const account = await settledAccount(n.infra);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        // A different credential each time, so only the address limit can refuse.
        const key = await accessKeyFor(n.infra, app.anchor, account.id);
        const res = await postJson(
          `${host.url}/direct-issue/access-key`,
          { applicationAnchor: app.anchor, ...key, workloadId: undefined },
          { 'x-forwarded-for': `203.0.113.${i + 1}`, forwarded: `for=198.51.100.${i + 1}` },
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await host.close();
    }
  });
});
