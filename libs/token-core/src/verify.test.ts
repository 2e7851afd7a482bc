// Verification refuses every malformed, altered or mis-addressed token, each with its failure class.
import { createSign } from 'node:crypto';
import { kekFromBytes, open } from './kek';
import { mintAccessToken, newSid } from './mint';
import { generateSigningKey, importSigningKey, importVerificationKey } from './signing-key';
import { TYP } from './typ';
import { peekToken, type VerifyFailure, verifyApplicationToken } from './verify';

const kek = kekFromBytes(Buffer.alloc(32, 3));
const ISSUER = 'https://iss.test';
const AUDIENCE = 'my-app';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function setup() {
  const g = generateSigningKey(kek);
  const signer = { kid: g.kid, key: importSigningKey(kek, g.kid, g.privateKeyEnc) };
  const pub = importVerificationKey(g.publicJwk);
  const pem = open(kek, g.privateKeyEnc, g.kid).toString();
  /** Signs any header and payload with the real key: a token the service never mints but whose signature holds. */
  /** Signs any two segments, encoded or not as a client might, with the real key. */
  const forgeRaw = (headerSegment: string, payloadSegment: string) => {
    const input = `${headerSegment}.${payloadSegment}`;
    return `${input}.${createSign('sha256').update(input).sign(pem).toString('base64url')}`;
  };
  const forge = (header: Record<string, unknown>, payload: Record<string, unknown>) =>
    forgeRaw(b64(header), b64(payload));
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: ISSUER, aud: AUDIENCE, sid: newSid(), jti: 'j1', iat: now, exp: now + 600, sub: 's' };
  const header = { alg: 'RS256', kid: g.kid, typ: TYP.accountAccess };
  const verify = (token: string) =>
    verifyApplicationToken(token, {
      typ: [TYP.accountAccess],
      issuer: ISSUER,
      audience: AUDIENCE,
      key: pub,
      now: now * 1000,
    });
  return { signer, forge, forgeRaw, claims, header, verify, pub, now };
}

const failure = async (p: Promise<unknown>): Promise<VerifyFailure | 'accepted'> =>
  p.then(
    () => 'accepted' as const,
    (err: { failure: VerifyFailure }) => err.failure,
  );

describe('verifyApplicationToken', () => {
  test('accepts a forged-by-the-real-key token only when it is shaped exactly like ours', async () => {
    const { forge, claims, header, verify } = await setup();
    expect(await failure(verify(forge(header, claims)))).toBe('accepted');
    expect(await failure(verify(forge({ ...header, crit: ['exp'] }, claims)))).toBe('malformed');
    expect(await failure(verify(forge({ ...header, alg: 'HS256' }, claims)))).toBe('malformed');
    expect(await failure(verify(forge({ ...header, jku: 'https://evil.test' }, claims)))).toBe('malformed');
    expect(await failure(verify(forge(header, { ...claims, iss: 'https://other.test' })))).toBe(
      'invalid_claims',
    );
    expect(await failure(verify(forge(header, { ...claims, aud: [AUDIENCE] })))).toBe('malformed');
    const { jti: _jti, ...noJti } = claims;
    expect(await failure(verify(forge(header, noJti)))).toBe('invalid_claims');
    expect(await failure(verify(forge(header, { ...claims, iat: String(claims.iat) })))).toBe(
      'invalid_claims',
    );
    expect(await failure(verify(forge(header, { ...claims, nbf: claims.iat + 3600 })))).toBe(
      'invalid_claims',
    );
    expect(await failure(verify(forge(header, { ...claims, exp: claims.iat - 60 })))).toBe('expired');
    expect(await failure(verify(forge(header, { ...claims, act: { sub: 'x' } })))).toBe('invalid_claims');
  });

  test('refuses altered and malformed tokens', async () => {
    const { signer, verify, now } = await setup();
    const t = await mintAccessToken(signer, {
      issuer: ISSUER,
      audience: AUDIENCE,
      sid: newSid(),
      iat: now,
      ttlSeconds: 600,
      subject: 's',
    });
    const [h, p, s] = t.token.split('.') as [string, string, string];
    const other = b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'someone-else' });
    expect(await failure(verify(`${h}.${other}.${s}`))).toBe('bad_signature');
    expect(await failure(verify(`${h}.${p}.${s.slice(0, -4)}`))).toBe('bad_signature');
    expect(await failure(verify(`${h}.${p}.${s}x!`))).toBe('malformed');
    expect(await failure(verify(`${h}.${p}`))).toBe('malformed');
    expect(await failure(verify(`${h}.${p}.${s}.${s}`))).toBe('malformed');
    expect(await failure(verify(`${b64([1])}.${p}.${s}`))).toBe('malformed');
    expect(await failure(verify(`${h}.${Buffer.from('not json').toString('base64url')}.${s}`))).toBe(
      'malformed',
    );
    expect(await failure(verify(''))).toBe('malformed');
    expect(peekToken(t.token)).toMatchObject({ kid: signer.kid, typ: TYP.accountAccess, aud: AUDIENCE });
  });
});

describe('verifyApplicationToken decodes as jose does (found by verify-differential.test.ts)', () => {
  test('accepts padding, whitespace and a BOM inside a signed segment, and typ with application/ in any case', async () => {
    const { forge, forgeRaw, claims, header, verify } = await setup();
    const [h, p, s] = forge(header, claims).split('.') as [string, string, string];
    expect(await failure(verify(`${h}.${p}.${s}${'='.repeat((4 - (s.length % 4)) % 4)}`))).toBe('accepted');
    expect(await failure(verify(`${h}.${p}.${s}\n`))).toBe('accepted');
    const bom = (value: unknown) =>
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(value))]).toString(
        'base64url',
      );
    expect(await failure(verify(forgeRaw(b64(header), bom(claims))))).toBe('accepted');
    const upper = { ...header, typ: `APPLICATION/${TYP.accountAccess.toUpperCase()}` };
    expect(await failure(verify(forge(upper, claims)))).toBe('accepted');
    expect(await failure(verify(forge({ ...header, typ: `text/${TYP.accountAccess}` }, claims)))).toBe(
      'wrong_type',
    );
  });

  test('refuses invalid UTF-8 in the claims, and a future nbf even when the expiry is ignored', async () => {
    const { forge, forgeRaw, claims, header, pub, now } = await setup();
    const invalid = Buffer.concat([
      Buffer.from('{"x":"'),
      Buffer.from([0xff]),
      Buffer.from(`",${JSON.stringify(claims).slice(1)}`),
    ]);
    const opts = { typ: [TYP.accountAccess], issuer: ISSUER, audience: AUDIENCE, key: pub, now: now * 1000 };
    expect(
      await failure(verifyApplicationToken(forgeRaw(b64(header), invalid.toString('base64url')), opts)),
    ).toBe('malformed');
    const future = forge(header, { ...claims, nbf: claims.iat + 3600 });
    expect(await failure(verifyApplicationToken(future, { ...opts, ignoreExpiry: true }))).toBe(
      'invalid_claims',
    );
  });
});
