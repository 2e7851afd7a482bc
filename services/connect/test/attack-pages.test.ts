// Attack tests for issue 17 holes and spots on the pages, over HTTP as an attacker sends them: parallel code
// guesses across two replicas (hole 2), the STATUS_POLL/REVEAL warning (spot 4), malformed bodies and forged
// passkey calls refused before them (spot 5),
// usernameless assertions without a matching user handle or from a cross-origin frame (spot 6), and callback
// ports (spot 7).
import { randomInt } from 'node:crypto';
import {
  type Agent,
  type AssertionOptions,
  expectForgedCallsRefusedFirst,
  makeAgent,
  provisionAccount,
  provisionBackend,
  raceWrongCodes,
  softPasskey,
  wrongCodes,
} from '@svc/testkit';
import { domainAdmits } from '../src/domain/callback-url';
import { firstNameErrand, useConnectHost } from './helpers';

// Limits high enough that only the per-code counter stands between the guesses and the code.
const config = {
  rateLimits: { codeSendPerIp: 1000, codeSendPerRecipient: 1000, codeVerifyPerIp: 10_000, signInPerIp: 1000 },
};
const cx = useConnectHost({ config, replicas: 1 });

// Rounds of thirty parallel requests over two replicas: seconds each on a quiet machine, a minute on a loaded one.
jest.setTimeout(120_000);

/** A sign-up in progress: the page opened, a code mailed. */
async function pendingSignUp(): Promise<{ a: Agent; path: string; email: string; code: string }> {
  const backend = await provisionBackend(cx.infra, cx.host.url);
  const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
  const path = `/inquiries/${est.body.exposureKey}`;
  const a = makeAgent(cx.host.url);
  await a.request(path);
  const email = `guess-${randomInt(1e9)}@example.test`;
  await a.form(`${path}/email`, { email });
  return { a, path, email, code: await cx.mailbox.codeFor(email) };
}

describe('hole 2: code guesses raced in parallel', () => {
  test('thirty parallel wrong codes over two replicas, then the right one: the code is dead, every round', async () => {
    for (let round = 0; round < 4; round++) {
      const { a, path, code } = await pendingSignUp();
      await raceWrongCodes(a, [cx.host.url, cx.replica.url], `${path}/email/code`, code);
      await a.request(path);
      const right = await a.form(`${path}/email/code`, { code });
      expect(right.res.status).toBe(303);
      const page = await a.request(path);
      expect(page.text).not.toContain('data-passkey="register"');
      expect((await a.json(`${path}/passkey/registration-options`, {})).res.status).toBe(401);
    }
  });

  test('exactly five: four wrong guesses in parallel leave the code alive, five kill it', async () => {
    const alive = await pendingSignUp();
    await Promise.all(
      wrongCodes(alive.code, 4).map((wrong) => alive.a.form(`${alive.path}/email/code`, { code: wrong })),
    );
    await alive.a.request(alive.path);
    await alive.a.form(`${alive.path}/email/code`, { code: alive.code });
    expect((await alive.a.request(alive.path)).text).toContain('data-passkey="register"');

    const dead = await pendingSignUp();
    await Promise.all(
      wrongCodes(dead.code, 5).map((wrong, i) =>
        dead.a.form(`${(i % 2 ? cx.replica : cx.host).url}${dead.path}/email/code`, { code: wrong }),
      ),
    );
    await dead.a.request(dead.path);
    await dead.a.form(`${dead.path}/email/code`, { code: dead.code });
    const page = await dead.a.request(dead.path);
    expect(page.text).not.toContain('data-passkey="register"');
    expect((await dead.a.json(`${dead.path}/passkey/registration-options`, {})).res.status).toBe(401);
  });

  test('the right code sent thirty times at once signs up exactly one request', async () => {
    const { a, path, code } = await pendingSignUp();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        a.form(`${(i % 2 ? cx.replica : cx.host).url}${path}/email/code`, { code }),
      ),
    );
    // The one request that proved the code moved the flow to a fresh identifier; no other got through.
    const proven = answers.filter((r) => r.res.status === 303 && r.res.headers.getSetCookie().length > 0);
    expect(proven).toHaveLength(1);
  });
});

describe('spot 4: STATUS_POLL and REVEAL inquiries warn before sign-in', () => {
  const HEADING = 'Did you start this sign-in yourself?';
  test.each([
    [[{ type: 'STATUS_POLL' }], true],
    [[{ type: 'REVEAL' }], true],
    [
      [
        { type: 'CALLBACK', payload: { callbackUrl: 'https://app.example.test/cb' } },
        { type: 'STATUS_POLL' },
      ],
      true,
    ],
    [
      [{ type: 'CALLBACK', payload: { callbackUrl: 'https://app.example.test/cb' } }, { type: 'REVEAL' }],
      false,
    ],
    [[{ type: 'CALLBACK', payload: { callbackUrl: 'https://app.example.test/cb' } }], false],
  ])('return methods %j: warning %s', async (returnMethods, warned) => {
    const backend = await provisionBackend(cx.infra, cx.host.url, {
      names: { 'en-US': 'Harbor TV', 'zh-CN': '港湾电视' },
    });
    const est = await backend.establish({ returnMethods });
    const a = makeAgent(cx.host.url);
    const en = await a.request(`/inquiries/${est.body.exposureKey}?lang=en-US`);
    const zh = await a.request(`/inquiries/${est.body.exposureKey}?lang=zh-CN`);
    expect(en.text.includes(HEADING)).toBe(warned);
    expect(en.text.includes('Signing in gives Harbor TV access to your account on the device where')).toBe(
      warned,
    );
    expect(zh.text.includes('这次登录是您本人发起的吗？')).toBe(warned);
    expect(zh.text.includes('“港湾电视”将在发起此次登录的设备上获得访问您账户的权限')).toBe(warned);
  });
});

describe('spot 5: malformed page bodies are 400, never 500', () => {
  const malformed: [string, string][] = [
    ['empty object', '{}'],
    ['id only', '{"id":"abc"}'],
    ['wrong types', '{"id":1,"rawId":true,"type":"public-key","response":[],"clientExtensionResults":{}}'],
    [
      'missing response fields',
      '{"id":"abc","rawId":"abc","type":"public-key","response":{},"clientExtensionResults":{}}',
    ],
    [
      'response fields of the wrong type',
      '{"id":"abc","rawId":"abc","type":"public-key","response":{"clientDataJSON":{},"authenticatorData":1,"signature":null,"attestationObject":[]},"clientExtensionResults":{}}',
    ],
    [
      'not base64url',
      '{"id":"a b","rawId":"a+b/","type":"public-key","response":{"clientDataJSON":"%%"},"clientExtensionResults":{}}',
    ],
    ['array', '[]'],
    ['null', 'null'],
    ['string', '"hello"'],
    ['not JSON', '{"id":'],
  ];

  async function pages(): Promise<{ a: Agent; base: string; registration: boolean }[]> {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    const inquiry = makeAgent(cx.host.url);
    await inquiry.request(`/inquiries/${est.body.exposureKey}`);
    const account = await provisionAccount(cx.infra);
    const errandPath = await firstNameErrand(cx.host, backend.fixture.applicationId, account.id);
    const e = makeAgent(cx.host.url);
    await e.request(errandPath);
    return [
      { a: inquiry, base: `/inquiries/${est.body.exposureKey}`, registration: true },
      { a: e, base: errandPath, registration: false },
    ];
  }

  test('every passkey endpoint of inquiries and errands answers 400 InvalidBody', async () => {
    for (const { a, base, registration } of await pages()) {
      const endpoints = ['authentication', ...(registration ? ['registration'] : [])];
      for (const endpoint of endpoints) {
        for (const [what, body] of malformed) {
          const res = await a.json(`${base}/passkey/${endpoint}`, body);
          expect([endpoint, what, res.res.status]).toEqual([endpoint, what, 400]);
          expect(JSON.parse(res.text)).toEqual({ reason: 'InvalidBody' });
        }
      }
      const options = ['authentication-options', ...(registration ? ['registration-options'] : [])];
      for (const endpoint of options) {
        for (const body of ['{"x":1}', '[]', 'null', '{']) {
          const res = await a.json(`${base}/passkey/${endpoint}`, body);
          expect([endpoint, body, res.res.status]).toEqual([endpoint, body, 400]);
        }
      }
    }
  });

  test('a forged passkey call (no or a wrong CSRF token, a foreign Origin) is 403 before its malformed body is 400', async () => {
    for (const { a, base, registration } of await pages()) {
      await expectForgedCallsRefusedFirst(a, base, [
        'authentication-options',
        'authentication',
        ...(registration ? (['registration-options', 'registration'] as const) : []),
      ]);
    }
  });

  test('form posts: missing, repeated or too many fields are 400, oversized bodies 413, never 500', async () => {
    const [inquiry, errand] = await pages();
    const post = (who: Agent, path: string, body: string) =>
      who.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const csrf = (who: Agent) => `_csrf=${encodeURIComponent(who.csrf)}`;
    const i = inquiry!;
    const e = errand!;
    const cases: [Agent, string, string, number][] = [
      [i.a, `${i.base}/email`, csrf(i.a), 400],
      [i.a, `${i.base}/email`, `${csrf(i.a)}&email=a@example.test&email=b@example.test`, 400],
      [i.a, `${i.base}/email/code`, `${csrf(i.a)}&code=1&code=2`, 400],
      [i.a, `${i.base}/terms`, `${csrf(i.a)}&accept=yes`, 400],
      [i.a, `${i.base}/email`, `${csrf(i.a)}&email=${'a'.repeat(20_000)}`, 413],
      [
        i.a,
        `${i.base}/email`,
        `${csrf(i.a)}&${Array.from({ length: 60 }, (_, n) => `f${n}=1`).join('&')}`,
        400,
      ],
      [e.a, `${e.base}/email/code`, csrf(e.a), 400],
      [e.a, `${e.base}/details`, `${csrf(e.a)}&consent_firstName=GRANTED&consent_firstName=DENIED`, 400],
    ];
    for (const [who, path, body, status] of cases) {
      const { res, text } = await post(who, path, body);
      expect([path, body.slice(0, 60), res.status]).toEqual([path, body.slice(0, 60), status]);
      expect(text).not.toMatch(/at .+\.ts:\d+/);
    }
  });
});

describe('spot 6: usernameless assertions', () => {
  test('without a user handle, with another account’s, or from a cross-origin frame: refused; the genuine one signs in', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const path = `/inquiries/${est.body.exposureKey}`;
    const victim = await provisionAccount(cx.infra);
    const other = await provisionAccount(cx.infra);
    const passkey = await softPasskey(cx.infra, victim.id);
    const otherKey = await softPasskey(cx.infra, other.id);
    const a = makeAgent(cx.host.url);
    await a.request(path);
    const attempt = async (o: Partial<AssertionOptions>) => {
      const options = await a.json(`${path}/passkey/authentication-options`, {});
      const { challenge } = JSON.parse(options.text) as { challenge: string };
      const assertion = passkey.assert({ challenge, origin: cx.host.url, rpId: '127.0.0.1', ...o });
      return (await a.json(`${path}/passkey/authentication`, assertion)).res.status;
    };
    expect(await attempt({ userHandle: null })).toBe(401);
    expect(await attempt({ userHandle: otherKey.userHandle })).toBe(401);
    expect(await attempt({ crossOrigin: true })).toBe(401);
    expect(await attempt({ topOrigin: 'https://evil.example.test' })).toBe(401);
    expect((await a.request(path)).text).toContain('Sign in with a passkey');
    // The control: the same passkey, its own user handle, same-origin.
    expect(await attempt({})).toBe(200);
    expect((await a.request(path)).text).toContain('iqc_');
  });
});

describe('spot 7: callback ports', () => {
  test('a domain without a port admits any port on loopback only; elsewhere the default port', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url, {
      callbackDomains: ['app.example.test', 'port.example.test:8443', 'localhost', '127.0.0.1', '[::1]'],
    });
    const verdict = async (callbackUrl: string) =>
      (await backend.establish({ returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl } }] })).status;
    for (const url of [
      'https://app.example.test/cb',
      'https://app.example.test:443/cb',
      'https://port.example.test:8443/cb',
      'http://localhost:49152/cb',
      'http://127.0.0.1:1/cb',
      'http://[::1]:8080/cb',
      'https://localhost:9443/cb',
    ])
      expect([url, await verdict(url)]).toEqual([url, 200]);
    for (const url of [
      'https://app.example.test:8443/cb',
      'https://app.example.test:444/cb',
      'https://port.example.test/cb',
      'https://port.example.test:8444/cb',
    ])
      expect([url, await verdict(url)]).toEqual([url, 400]);
  });

  test('domainAdmits: host names equal, ports by the rules', () => {
    const u = (s: string) => new URL(s);
    expect(domainAdmits('app.example.test', u('https://APP.example.test/x'))).toBe(true);
    expect(domainAdmits('app.example.test', u('http://app.example.test:80/x'))).toBe(true);
    expect(domainAdmits('app.example.test', u('https://app.example.test:80/x'))).toBe(false);
    expect(domainAdmits('app.example.test:443', u('https://app.example.test/x'))).toBe(true);
    expect(domainAdmits('app.example.test:8443', u('https://app.example.test:8443/x'))).toBe(true);
    expect(domainAdmits('example.test', u('https://app.example.test/x'))).toBe(false);
    expect(domainAdmits('[::1]:9000', u('http://[::1]:9000/x'))).toBe(true);
    expect(domainAdmits('[::1]:9000', u('http://[::1]:9001/x'))).toBe(false);
  });
});
