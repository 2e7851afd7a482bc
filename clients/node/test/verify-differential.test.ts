// Differential test: the SDK's verifier accepts exactly the access tokens the hosts' own verification accepts
// (token-core's peekToken, the key of that kid, verifyApplicationToken), over generated and mutated tokens: header
// members and values, claims, JSON text, base64url segments and signatures. FUZZ_RUNS scales it (default 40 ->
// 1,000 tokens; FUZZ_RUNS=400 -> 10,000); FUZZ_SEED replays a run.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createVerifier } from '@signin-service/node';
import { FUZZ_RUNS, FUZZ_SEED } from '@svc/testkit';
import { importVerificationKey, peekToken, TYP, verifyApplicationToken } from '@svc/token-core';
import fc from 'fast-check';

const ISSUER = 'https://iss.test';
const ANCHOR = 'diff-app';
const KID = 'rk_diff';
const NOW = 1_800_000_000_000;
const nowSeconds = NOW / 1000;
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'RS256' };
const hostKey = importVerificationKey(jwk as never);

const verifierFor = (acceptWorkload: boolean) =>
  createVerifier({
    sessionUrl: 'https://session.test',
    applicationAnchor: ANCHOR,
    issuer: ISSUER,
    acceptWorkload,
    now: () => NOW,
    fetch: async () => Response.json({ keys: [jwk] }, { headers: { 'cache-control': 'max-age=300' } }),
  });
const verifiers = { true: verifierFor(true), false: verifierFor(false) };

async function hostAccepts(token: string, acceptWorkload: boolean): Promise<boolean> {
  try {
    const peek = peekToken(token);
    if (peek.kid !== KID) return false;
    const typ = acceptWorkload ? [TYP.accountAccess, TYP.workloadAccess] : [TYP.accountAccess];
    await verifyApplicationToken(
      token,
      { typ, issuer: ISSUER, audience: ANCHOR, key: hostKey, now: NOW },
      peek,
    );
    return true;
  } catch {
    return false;
  }
}

const sdkAccepts = (token: string, acceptWorkload: boolean) =>
  verifiers[`${acceptWorkload}`].verify(token).then(
    () => true,
    () => false,
  );

const WEIRD = [
  null,
  '',
  0,
  1.5,
  -1,
  true,
  [],
  {},
  [ANCHOR],
  'x',
  { sub: '' },
  { sub: 'agent' },
  '1',
  undefined,
];
const KINDS = {
  account: { typ: TYP.accountAccess, extra: {} },
  workload: { typ: TYP.workloadAccess, extra: { act: { sub: 'agent-1' } } },
  refresh: { typ: TYP.refresh, extra: { rotationVersion: 1, sub: undefined } },
};
/** One change to a genuine header or payload: a member set to a value taken from tricks and edges. */
const change = fc.oneof(
  fc.record({
    part: fc.constant('header' as const),
    name: fc.constantFrom('alg', 'kid', 'typ', 'crit', 'jku', 'cty'),
    value: fc.constantFrom<unknown>(
      ...WEIRD,
      'none',
      'HS256',
      'rs256',
      'rk_other',
      TYP.accountAccess.toUpperCase(),
      `application/${TYP.workloadAccess}`,
      ` ${TYP.accountAccess}`,
      'JWT',
    ),
  }),
  fc.record({
    part: fc.constant('payload' as const),
    name: fc.constantFrom('iss', 'aud', 'sub', 'sid', 'jti', 'iat', 'exp', 'nbf', 'act', 'rotationVersion'),
    value: fc.oneof(
      fc.constantFrom<unknown>(
        ...WEIRD,
        `${ISSUER}/`,
        'other-app',
        '9999999999',
        nowSeconds + 3,
        nowSeconds + 10,
      ),
      fc.integer({ min: nowSeconds - 20, max: nowSeconds + 20 }),
    ),
  }),
);
const genuine = fc.record({
  kind: fc.constantFrom<keyof typeof KINDS>('account', 'account', 'workload', 'refresh'),
  changes: fc.array(change, { maxLength: 2 }),
});
const signing = fc.constantFrom('real', 'real', 'real', 'real', 'other', 'none', 'flip');
const transport = fc.constantFrom(
  'plain',
  'plain',
  'plain',
  'plain',
  'padding',
  'whitespace',
  'std-chars',
  'bom',
);

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64url');
const withoutUndefined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function build(h: Record<string, unknown>, p: Record<string, unknown>, how: string, wire: string): string {
  const { extra, ...members } = h as { extra: Record<string, unknown> };
  let head = b64(JSON.stringify(withoutUndefined({ ...members, ...extra })));
  let body =
    wire === 'bom'
      ? b64(`\ufeff${JSON.stringify(withoutUndefined(p))}`)
      : b64(JSON.stringify(withoutUndefined(p)));
  const key: KeyObject | undefined = how === 'other' ? other : how === 'none' ? undefined : privateKey;
  let sig = key ? sign('sha256', Buffer.from(`${head}.${body}`), key).toString('base64url') : '';
  if (how === 'flip') sig = `${sig.slice(0, 20)}${sig[20] === 'A' ? 'B' : 'A'}${sig.slice(21)}`;
  if (wire === 'padding') [head, body] = [`${head}${'='.repeat((4 - (head.length % 4)) % 4)}`, body];
  if (wire === 'whitespace') body = `${body.slice(0, 4)} ${body.slice(4)}`;
  if (wire === 'std-chars') sig = sig.replace(/-/g, '+').replace(/_/g, '/');
  return `${head}.${body}.${sig}`;
}

test('the SDK verifier and the hosts verification agree on generated and mutated tokens', async () => {
  const runs = FUZZ_RUNS * 25;
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(
      genuine,
      signing,
      transport,
      fc.boolean(),
      async ({ kind, changes }, how, wire, acceptWorkload) => {
        const h: Record<string, unknown> = { alg: 'RS256', kid: KID, typ: KINDS[kind].typ, extra: {} };
        const p: Record<string, unknown> = {
          iss: ISSUER,
          aud: ANCHOR,
          sub: 'sub-1',
          sid: 'sid_1',
          jti: 'jti-1',
          iat: nowSeconds - 10,
          exp: nowSeconds + 3600,
          ...KINDS[kind].extra,
        };
        for (const c of changes) (c.part === 'header' ? h : p)[c.name] = c.value;
        const token = build(h, p, how, wire);
        const host = await hostAccepts(token, acceptWorkload);
        if (host) accepted += 1;
        expect({ token, sdk: await sdkAccepts(token, acceptWorkload) }).toEqual({ token, sdk: host });
      },
    ),
    { numRuns: runs, seed: FUZZ_SEED },
  );
  // The generator reaches acceptance often enough for the comparison to mean something.
  expect(accepted).toBeGreaterThan(runs / 50);
});
