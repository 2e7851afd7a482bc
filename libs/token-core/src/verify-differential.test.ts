// Differential test: the hand-written verifier accepts and refuses exactly the tokens jose's jwtVerify does.
import {
  createHmac,
  generateKeyPairSync,
  type KeyObject,
  createPrivateKey as keyFromPem,
  randomBytes,
  sign,
} from 'node:crypto';
import { promisify } from 'node:util';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { kekFromBytes, open } from './kek';
import { generateSigningKey, importVerificationKey } from './signing-key';
import { TYP } from './typ';
import { TokenVerificationError, verifyApplicationToken } from './verify';

/**
 * How the generator works: a valid token of one of our three shapes is taken through up to four layers of
 * mutation (header and claims objects, their JSON text and bytes, the base64url segments, the signature) and
 * then presented to both verifiers under one policy. The policy beyond JWS (header members exactly alg, kid and
 * typ; `aud` a string; the per-typ claim shapes) is restated here from the spec, independently of verify.ts.
 */
const CASES = Number(process.env.VERIFY_DIFF_CASES ?? 10_000);
// CI replays one fixed seed (reproducible submissions); local runs explore a fresh seed each.
const SEED = Number(
  process.env.VERIFY_DIFF_SEED ?? (process.env.CI ? 20261122 : randomBytes(4).readUInt32LE(0)),
);
const ISSUER = 'https://iss.test';
const AUDIENCE = 'my-app';
const TOLERANCE = 5;
const REQUIRED = ['iss', 'aud', 'sid', 'jti', 'iat', 'exp'];

/** mulberry32: small, seedable, good enough to pick mutations. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

type Kind = 'account' | 'workload' | 'refresh';
const TYP_OF: Record<Kind, string> = {
  account: TYP.accountAccess,
  workload: TYP.workloadAccess,
  refresh: TYP.refresh,
};
const MODES: readonly (readonly string[])[] = [
  [TYP.accountAccess, TYP.workloadAccess],
  [TYP.accountAccess],
  [TYP.refresh],
];

interface Keys {
  kid: string;
  pem: string;
  pub: KeyObject;
  publicPem: string;
  other: KeyObject;
  ec: KeyObject;
}

interface Case {
  token: string;
  typ: readonly string[];
  ignoreExpiry: boolean;
  steps: string[];
}

type Json = Record<string, unknown>;

/** Strings that are each one trick: types, edges, look-alikes. */
const WRONG_VALUES: readonly unknown[] = ['1', null, [], {}, true, 1.5, -1, 0, '', [AUDIENCE], { sub: 'x' }];

type Mutation = readonly [string, (o: Json, rng: Rng) => void];

/** Sets one member (picked from `names`) to one of `values`. */
const setOneOf =
  (names: readonly string[], values: readonly unknown[]) =>
  (o: Json, rng: Rng): void => {
    o[rng.pick(names)] = rng.pick(values);
  };

function headerMutations(keys: Keys): readonly Mutation[] {
  return [
    ['alg', setOneOf(['alg'], ['none', 'HS256', 'ES256', 'RS384', 'PS256', 'rs256', '', null, 1])],
    ['kid-missing', (h) => void delete h.kid],
    ['kid-value', setOneOf(['kid'], ['', 1, null, ['x'], 'rk_other', `${keys.kid} `])],
    ['typ-missing', (h) => void delete h.typ],
    [
      'typ-variant',
      (h, rng) => {
        const t = String(h.typ);
        h.typ = rng.pick([
          t.toUpperCase(),
          `application/${t}`,
          `APPLICATION/${t.toUpperCase()}`,
          `text/${t}`,
          `application/application/${t}`,
          t.replace(/k/g, '\u212a'),
          t.replace(/i/g, '\u0130'),
          ` ${t}`,
          `${t} `,
          'JWT',
          'at+jwt',
          1,
          null,
          rng.pick(Object.values(TYP)),
        ]);
      },
    ],
    [
      'extra-member',
      (h, rng) => {
        const extra: Json = rng.pick([
          { crit: ['exp'] },
          { crit: [] },
          { crit: ['b64'], b64: false },
          { crit: ['b64'], b64: true },
          { b64: true },
          { jku: 'https://evil.test/jwks' },
          { jwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB' } },
          { x5u: 'https://evil.test/x5u' },
          { cty: 'JWT' },
          { zip: 'DEF' },
          { kid2: 'x' },
          { alg2: 'RS256' },
        ]);
        Object.assign(h, extra);
      },
    ],
    [
      'member-order',
      (h) => {
        const entries = Object.entries(h).reverse();
        for (const k of Object.keys(h)) delete h[k];
        for (const [k, v] of entries) h[k] = v;
      },
    ],
  ];
}

function payloadMutations(now: number): readonly Mutation[] {
  const claimNames = [...REQUIRED, 'sub', 'act', 'rotationVersion', 'nbf'];
  const around = (offsets: number[]) => offsets.map((d) => now + d);
  return [
    ['claim-missing', (p, rng) => void delete p[rng.pick(claimNames)]],
    ['claim-wrong-type', setOneOf(claimNames, WRONG_VALUES)],
    [
      'exp-edge',
      setOneOf(['exp'], [...around([-6, -5, -4.5, -4, -1, 0, 1, 4, 5, 6, -1e6, 1e12, -5.5, 0.5]), -1, 0]),
    ],
    ['nbf-edge', setOneOf(['nbf'], around([-100, -1, 0, 4, 4.5, 5, 5.5, 6, 100, 1e12]))],
    ['iat-edge', setOneOf(['iat'], [...around([1000, -1e6, 0.5]), -1, 0, 1e12])],
    ['aud', setOneOf(['aud'], [[AUDIENCE], [AUDIENCE, 'x'], 'other', `${AUDIENCE} `, 'MY-APP'])],
    ['iss', setOneOf(['iss'], ['https://other.test', `${ISSUER}/`, 'HTTPS://ISS.TEST', [ISSUER]])],
    ['sid-jti', setOneOf(['sid', 'jti'], [1, '', null, ['x']])],
    ['sub', setOneOf(['sub'], ['', 0, 's2', null, ['s']])],
    ['act', setOneOf(['act'], [{ sub: '' }, { sub: 1 }, 'x', {}, { sub: 'agent' }, null, []])],
    ['rotation-version', setOneOf(['rotationVersion'], [0, 1, 1.5, '1', -1, 2 ** 53, null, 7])],
    [
      'extra-claims',
      (p, rng) => {
        Object.assign(
          p,
          rng.pick([
            { scope: 'a b' },
            { nested: { a: [1, { b: null }] } },
            { s: '\u2028\u2029' },
            { cnf: {} },
          ]),
        );
      },
    ],
  ];
}

/** JSON text tricks; `bytes` may be made invalid UTF-8 here. */
function textMutations(): readonly [string, (text: string, obj: unknown, rng: Rng) => Buffer][] {
  const utf8 = (s: string) => Buffer.from(s, 'utf8');
  return [
    ['pretty', (_t, obj) => utf8(JSON.stringify(obj, null, 2))],
    [
      'outer-whitespace',
      (t, _o, rng) => utf8(`${rng.pick([' ', '\n', '\t', '\r\n'])}${t}${rng.pick(['', ' ', '\n'])}`),
    ],
    [
      'duplicate-member',
      (t, obj, rng) => {
        if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return utf8(t);
        const name = rng.pick(Object.keys(obj).concat(['alg', 'typ', 'exp', 'aud', 'iss']));
        const value = JSON.stringify(rng.pick([...WRONG_VALUES, 'none', 'RS256', (obj as Json)[name] ?? 1]));
        // First or last occurrence: JSON.parse keeps the last, and both verifiers must agree on that.
        return rng.chance(0.5)
          ? utf8(`{"${name}":${value},${t.slice(1)}`)
          : utf8(`${t.slice(0, -1)}${t.length > 2 ? ',' : ''}"${name}":${value}}`);
      },
    ],
    ['bom', (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(t)])],
    [
      'invalid-utf8',
      (t, _o, rng) => {
        const bad = Buffer.from(
          rng.pick([[0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]),
        );
        const at = t.indexOf('"') + 1 || 1;
        return Buffer.concat([utf8(t.slice(0, at)), bad, utf8(t.slice(at))]);
      },
    ],
    ['lone-surrogate-escape', (t) => utf8(t.replace(/"(sid|jti|kid|sub)":"/, '"$1":"\\ud800'))],
    ['proto-member', (t) => utf8(`{"__proto__":{"alg":"none","sub":"x"},${t.slice(1)}`)],
    ['trailing-garbage', (t, _o, rng) => utf8(`${t}${rng.pick(['x', ',', '}', '\u0000', ' 1'])}`)],
    ['truncated', (t, _o, rng) => utf8(t.slice(0, rng.int(t.length)))],
    ['non-ascii', (t) => utf8(t.replace(/"(sid|jti|sub)":"/, '"$1":"\u00e9\u4e2d'))],
    ['huge-number', (t) => utf8(t.replace(/"(exp|iat|nbf|rotationVersion)":[-\d.e+]+/, '"$1":1e400'))],
    ['escaped-nul', (t) => utf8(t.replace(/"(sid|jti|sub)":"/, '"$1":"\\u0000'))],
    [
      'non-object',
      (_t, _o, rng) => utf8(rng.pick(['[]', 'null', '1', '"x"', 'true', '[{"alg":"RS256"}]', '{}', ''])),
    ],
  ];
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function segmentMutations(): readonly [string, (seg: string, rng: Rng) => string][] {
  return [
    ['padding', (s) => s + '='.repeat((4 - (s.length % 4)) % 4)],
    ['wrong-padding', (s, rng) => s + rng.pick(['=', '==', '===', '====', '=A'])],
    [
      'whitespace',
      (s, rng) => {
        const at = rng.int(s.length + 1);
        const ws = rng.pick([' ', '\n', '\t', '\r', '\f', '\v', '\u00a0', '\u2028', '\r\n']);
        return s.slice(0, at) + ws + s.slice(at);
      },
    ],
    [
      'non-canonical-bits',
      (s) => {
        const spare = s.length % 4 === 2 ? 0b1111 : s.length % 4 === 3 ? 0b11 : 0;
        if (!spare) return s;
        const idx = B64URL.indexOf(s.at(-1) ?? 'A');
        return s.slice(0, -1) + B64URL[(idx & ~spare) | (((idx & spare) + 1) & spare)];
      },
    ],
    ['std-alphabet', (s) => s.replace(/-/g, '+').replace(/_/g, '/')],
    [
      'invalid-char',
      (s, rng) => {
        const at = rng.int(s.length + 1);
        return s.slice(0, at) + rng.pick(['!', '%', '\u00e9', '\uff21', '*', '\u0000']) + s.slice(at);
      },
    ],
    ['drop-char', (s, rng) => (s ? s.slice(0, -1 - rng.int(Math.min(3, s.length))) : s)],
    ['empty', () => ''],
  ];
}

const signAsync = promisify(sign);

const realSignatures = new Map<string, Promise<Buffer>>();

async function signature(keys: Keys, mode: string, input: string): Promise<Buffer> {
  const data = Buffer.from(input, 'latin1');
  const real = () => {
    const cached = realSignatures.get(input);
    if (cached) return cached;
    const fresh = signAsync('sha256', data, keys.pem);
    realSignatures.set(input, fresh);
    return fresh;
  };
  switch (mode) {
    case 'other-rsa':
      return signAsync('sha256', data, keys.other);
    case 'hs256-public-key':
      return createHmac('sha256', keys.publicPem).update(data).digest();
    case 'es256':
      return signAsync('sha256', data, { key: keys.ec, dsaEncoding: 'ieee-p1363' });
    case 'none':
      return Buffer.alloc(0);
    case 'truncated':
      return (await real()).subarray(0, 255);
    case 'drop-first':
      return (await real()).subarray(1);
    case 'leading-zero':
      return Buffer.concat([Buffer.alloc(1), await real()]);
    case 'trailing-zero':
      return Buffer.concat([await real(), Buffer.alloc(1)]);
    case 'strip-leading-zeros': {
      const s = await real();
      let i = 0;
      while (i < s.length && s[i] === 0) i++;
      return s.subarray(i);
    }
    case 'random':
      return randomBytes(256);
    case 'zeros':
      return Buffer.alloc(256);
    case 'one-bit':
      return (await real()).map((b, i) => (i === 100 ? b ^ 1 : b)) as Buffer;
    default:
      return real();
  }
}
const SIGN_MODES = [
  'other-rsa',
  'hs256-public-key',
  'es256',
  'none',
  'truncated',
  'drop-first',
  'leading-zero',
  'trailing-zero',
  'strip-leading-zeros',
  'random',
  'zeros',
  'one-bit',
];

const TOKEN_EDITS = ['lead-space', 'trail-newline', 'extra-segment', 'two-segments', 'bearer', 'empty'];

/** A step's family, e.g. `segment:padding` for `segment1:padding(signed after)`. */
const familyOf = (step: string) =>
  step
    .replace(/^segment\d/, 'segment')
    .replace(/^(header|payload)-text/, 'text')
    .replace(/\(.*\)$/, '');

async function generate(rng: Rng, keys: Keys, now: number): Promise<Case> {
  const steps: string[] = [];
  const kind: Kind = rng.pick(['account', 'workload', 'refresh']);
  const typ = rng.chance(0.8)
    ? (MODES.find((m) => m.includes(TYP_OF[kind])) as readonly string[])
    : rng.pick(MODES);
  const header: Json = { alg: 'RS256', kid: keys.kid, typ: TYP_OF[kind] };
  const payload: Json = {
    iss: ISSUER,
    aud: AUDIENCE,
    // Few distinct base values, so that equal signing inputs recur and their signatures come from the cache.
    sid: rng.pick(['sid_a', 'sid_b']),
    jti: rng.pick(['jti_a', 'jti_b']),
    iat: now - rng.pick([0, 60]),
    exp: now + rng.pick([1, 600]),
  };
  if (kind === 'refresh') payload.rotationVersion = rng.pick([1, 42]);
  else payload.sub = rng.pick(['sub_a', 'sub_b']);
  if (kind === 'workload') payload.act = { sub: 'act_a' };

  const layers = rng.chance(0.2) ? 0 : rng.chance(0.6) ? 1 : 2 + rng.int(2);
  const hm = headerMutations(keys);
  const pm = payloadMutations(now);
  const tm = textMutations();
  const sm = segmentMutations();
  let headerBytes: Buffer | undefined;
  let payloadBytes: Buffer | undefined;
  let headerSeg: string | undefined;
  let payloadSeg: string | undefined;
  let signMode = 'real';
  let signAfterSegments = true;
  const segmentEdits: [0 | 1 | 2, string, (s: string, r: Rng) => string][] = [];
  const tokenEdits: string[] = [];
  for (let i = 0; i < layers; i++) {
    const layer = rng.int(6);
    if (layer === 0) {
      const [name, f] = rng.pick(hm);
      f(header, rng);
      steps.push(`header:${name}`);
    } else if (layer === 1) {
      const [name, f] = rng.pick(pm);
      f(payload, rng);
      steps.push(`payload:${name}`);
    } else if (layer === 2) {
      const [name, f] = rng.pick(tm);
      if (rng.chance(0.5)) {
        headerBytes = f(JSON.stringify(header), header, rng);
        steps.push(`header-text:${name}`);
      } else {
        payloadBytes = f(JSON.stringify(payload), payload, rng);
        steps.push(`payload-text:${name}`);
      }
    } else if (layer === 3) {
      const [name, f] = rng.pick(sm);
      const which = rng.pick([0, 1, 2] as const);
      segmentEdits.push([which, name, f]);
      signAfterSegments = rng.chance(0.7);
      steps.push(
        `segment${which}:${name}${which < 2 ? (signAfterSegments ? '(signed after)' : '(signed before)') : ''}`,
      );
    } else if (layer === 4) {
      signMode = rng.pick(SIGN_MODES);
      steps.push(`signature:${signMode}`);
    } else {
      tokenEdits.push(rng.pick(TOKEN_EDITS));
      steps.push(`token:${tokenEdits.at(-1)}`);
    }
  }
  // A header claiming HS256 or ES256 is signed that way half the time (the classic confusion attacks).
  if (signMode === 'real' && header.alg === 'HS256' && rng.chance(0.5)) signMode = 'hs256-public-key';
  if (signMode === 'real' && header.alg === 'ES256' && rng.chance(0.5)) signMode = 'es256';
  if (signMode === 'real' && header.alg === 'none' && rng.chance(0.5)) signMode = 'none';

  headerBytes ??= Buffer.from(JSON.stringify(header));
  payloadBytes ??= Buffer.from(JSON.stringify(payload));
  headerSeg = headerBytes.toString('base64url');
  payloadSeg = payloadBytes.toString('base64url');
  const canonicalInput = `${headerSeg}.${payloadSeg}`;
  for (const [which, , f] of segmentEdits) {
    if (which === 0) headerSeg = f(headerSeg, rng);
    if (which === 1) payloadSeg = f(payloadSeg, rng);
  }
  const input = `${headerSeg}.${payloadSeg}`;
  let sigSeg = (await signature(keys, signMode, signAfterSegments ? input : canonicalInput)).toString(
    'base64url',
  );
  for (const [which, , f] of segmentEdits) if (which === 2) sigSeg = f(sigSeg, rng);
  let token = `${input}.${sigSeg}`;
  for (const edit of tokenEdits) {
    if (edit === 'lead-space') token = ` ${token}`;
    if (edit === 'trail-newline') token = `${token}\n`;
    if (edit === 'extra-segment') token = `${token}.${sigSeg}`;
    if (edit === 'two-segments') token = input;
    if (edit === 'bearer') token = `Bearer ${token}`;
    if (edit === 'empty') token = '';
  }
  return { token, typ, ignoreExpiry: rng.chance(0.25), steps };
}

type Outcome = { ok: true; typ: string; claims: unknown } | { ok: false; why: string };

async function ours(c: Case, key: KeyObject, now: Date): Promise<Outcome> {
  try {
    const r = await verifyApplicationToken(c.token, {
      typ: c.typ,
      issuer: ISSUER,
      audience: AUDIENCE,
      key,
      ignoreExpiry: c.ignoreExpiry,
      now: now.getTime(),
    });
    return { ok: true, typ: r.typ, claims: r.claims };
  } catch (err) {
    // Anything but a classified failure would escape a host as a 500.
    if (!(err instanceof TokenVerificationError)) return { ok: false, why: `UNCLASSIFIED ${String(err)}` };
    return { ok: false, why: err.failure };
  }
}

/** Our token shapes, restated from the spec: checked on what jose verified and decoded. */
function policy(typ: string, header: Json, payload: Json): string | undefined {
  if (Object.keys(header).some((m) => m !== 'alg' && m !== 'kid' && m !== 'typ')) return 'header members';
  if (typeof header.kid !== 'string' || header.kid === '') return 'kid';
  if (typeof payload.aud !== 'string') return 'aud type';
  if (typeof payload.sid !== 'string' || typeof payload.jti !== 'string') return 'sid/jti';
  if (typ === TYP.refresh) {
    const v = payload.rotationVersion;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || 'sub' in payload) return 'refresh shape';
  } else if (typeof payload.sub !== 'string' || payload.sub === '') return 'sub';
  const act = payload.act as Json | null | undefined;
  if (typ === TYP.workloadAccess && (typeof act?.sub !== 'string' || act.sub === '')) return 'act';
  if (typ === TYP.accountAccess && 'act' in payload) return 'act present';
  return undefined;
}

async function reference(c: Case, key: KeyObject, now: Date): Promise<Outcome> {
  let last = 'no typ';
  for (const typ of c.typ) {
    let header: Json;
    let payload: Json;
    try {
      const r = await jwtVerify(c.token, key, {
        algorithms: ['RS256'],
        typ,
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: REQUIRED,
        clockTolerance: TOLERANCE,
        currentDate: now,
      });
      header = r.protectedHeader as Json;
      payload = r.payload as Json;
    } catch (err) {
      // exp is jose's last claim check, so an expired token passed every other check.
      if (c.ignoreExpiry && err instanceof errors.JWTExpired) {
        header = decodeProtectedHeader(c.token) as Json;
        payload = err.payload as Json;
      } else if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'typ') {
        last = 'typ';
        continue;
      } else {
        return { ok: false, why: (err as { code?: string }).code ?? String(err) };
      }
    }
    const refused = policy(typ, header, payload);
    return refused ? { ok: false, why: `policy: ${refused}` } : { ok: true, typ, claims: payload };
  }
  return { ok: false, why: last };
}

async function makeKeys(): Promise<Keys> {
  const kek = kekFromBytes(Buffer.alloc(32, 7));
  const g = generateSigningKey(kek);
  const pem = open(kek, g.privateKeyEnc, g.kid).toString();
  const publicPem = keyFromPem(pem).export({ type: 'pkcs1', format: 'pem' }).toString();
  return {
    kid: g.kid,
    pem,
    pub: importVerificationKey(g.publicJwk),
    publicPem,
    other: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    ec: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
  };
}

test(`the hand-written verifier and jose's jwtVerify agree on ${CASES} generated and mutated tokens`, async () => {
  console.log(`verify differential: ${CASES} cases, seed ${SEED} (rerun with VERIFY_DIFF_SEED=${SEED})`);
  const keys = await makeKeys();
  const rng = prng(SEED);
  const nowSeconds = Math.floor(Date.now() / 1000);
  const now = new Date(nowSeconds * 1000);
  const divergences: string[] = [];
  const started = performance.now();
  let accepted = 0;
  const seen = new Set<string>();
  const BATCH = 64;
  for (let done = 0; done < CASES; done += BATCH) {
    const batch: Case[] = [];
    for (let i = 0; i < Math.min(BATCH, CASES - done); i++) batch.push(await generate(rng, keys, nowSeconds));
    await Promise.all(
      batch.map(async (c) => {
        const [a, b] = await Promise.all([ours(c, keys.pub, now), reference(c, keys.pub, now)]);
        for (const step of c.steps) seen.add(familyOf(step));
        if (a.ok) accepted++;
        const same =
          a.ok && b.ok
            ? a.typ === b.typ && JSON.stringify(a.claims) === JSON.stringify(b.claims)
            : a.ok === b.ok;
        if (!same || (!a.ok && a.why.startsWith('UNCLASSIFIED'))) {
          divergences.push(
            `${c.steps.join(' + ') || 'unmutated'} [typ ${c.typ.join('|')}${c.ignoreExpiry ? ', ignoreExpiry' : ''}]: ` +
              `ours ${a.ok ? 'accepts' : `refuses (${a.why})`}, jose ${b.ok ? 'accepts' : `refuses (${b.why})`}; ` +
              `token ${JSON.stringify(c.token.slice(0, 400))}`,
          );
        }
      }),
    );
  }
  console.log(
    `verify differential (seed ${SEED}): ${accepted} accepted, ${CASES - accepted} refused by both, ` +
      `${divergences.length} divergences, ${realSignatures.size} RS256 signatures, ${Math.round(performance.now() - started)} ms`,
  );
  // Every mutation family ran, and the generator reached both outcomes in earnest, or agreement would mean little.
  const families = [
    ...headerMutations(keys).map(([name]) => `header:${name}`),
    ...payloadMutations(nowSeconds).map(([name]) => `payload:${name}`),
    ...textMutations().map(([name]) => `text:${name}`),
    ...segmentMutations().map(([name]) => `segment:${name}`),
    ...SIGN_MODES.map((mode) => `signature:${mode}`),
    ...TOKEN_EDITS.map((edit) => `token:${edit}`),
  ];
  expect(families.filter((f) => !seen.has(f))).toEqual([]);
  expect(accepted).toBeGreaterThan(CASES * 0.15);
  expect(CASES - accepted).toBeGreaterThan(CASES * 0.3);
  expect(divergences.slice(0, 20)).toEqual([]);
  expect(divergences.length).toBe(0);
}, 120_000);
