// The node:crypto signing path: every token kind verifies with jose (the independent implementation), the tokens
// are byte for byte what jose's CompactSign over WebCrypto made from the same inputs, re-minting the same claims
// gives the same token (rotation's retry allowance relies on it), and the private key never shows in a log line.
import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import { CompactSign, type CryptoKey, compactVerify, importJWK, importPKCS8, jwtVerify } from 'jose';
import { type Signer, signJws } from './jws';
import { kekFromBytes, open, seal } from './kek';
import { mintAccessToken, mintRefreshToken, newSid } from './mint';
import { generateSigningKey, importSigningKey, importVerificationKey } from './signing-key';
import { TYP } from './typ';

const kek = kekFromBytes(Buffer.alloc(32, 5));
const ISSUER = 'https://iss.test';
const AUDIENCE = 'my-app';
const iat = 1_800_000_000;

async function setup() {
  const g = generateSigningKey(kek);
  const signer: Signer = { kid: g.kid, key: importSigningKey(kek, g.kid, g.privateKeyEnc) };
  const pem = open(kek, g.privateKeyEnc, g.kid).toString();
  // jose's own key objects, made from the same key material as before the change: the independent reference.
  const joseSigningKey = await importPKCS8(pem, 'RS256');
  const josePublicKey = (await importJWK(
    { kty: 'RSA', n: g.publicJwk.n, e: g.publicJwk.e },
    'RS256',
  )) as CryptoKey;
  return { g, pem, signer, joseSigningKey, josePublicKey };
}

/** The token jose's CompactSign makes over the same header members (in the order mint used) and payload bytes. */
async function joseToken(key: CryptoKey, kid: string, typ: string, payloadSegment: string) {
  const payload = Buffer.from(payloadSegment, 'base64url');
  return new CompactSign(payload).setProtectedHeader({ alg: 'RS256', kid, typ }).sign(key);
}

describe('RS256 signing on node:crypto KeyObjects', () => {
  test('every token kind verifies with jose and equals the token jose would have signed, byte for byte', async () => {
    const { signer, joseSigningKey, josePublicKey } = await setup();
    const common = { issuer: ISSUER, audience: AUDIENCE, sid: newSid(), iat, ttlSeconds: 600 };
    const kinds = [
      { typ: TYP.accountAccess, mint: () => mintAccessToken(signer, { ...common, subject: 'ss_owner' }) },
      {
        typ: TYP.workloadAccess,
        mint: () => mintAccessToken(signer, { ...common, subject: 'ss_owner', actorSubject: 'ss_agent' }),
      },
      { typ: TYP.refresh, mint: () => mintRefreshToken(signer, { ...common, rotationVersion: 7 }) },
      // The OIDC ID token's shape (typ JWT, the claims mintIdToken builds); its host test covers mintIdToken itself.
      {
        typ: 'JWT',
        mint: async () => ({
          token: await signJws(
            signer,
            'JWT',
            JSON.stringify({ iss: ISSUER, sub: 'ss_x', aud: 'client', iat, exp: iat + 300, auth_time: iat }),
          ),
        }),
      },
    ];
    for (const kind of kinds) {
      const { token } = await kind.mint();
      const [headerSegment, payloadSegment] = token.split('.') as [string, string, string];
      // The header's exact bytes, in the member order jose serialised them before.
      expect(Buffer.from(headerSegment, 'base64url').toString()).toBe(
        `{"alg":"RS256","kid":"${signer.kid}","typ":"${kind.typ}"}`,
      );
      expect(token).toBe(await joseToken(joseSigningKey, signer.kid, kind.typ, payloadSegment));
      const verified = await jwtVerify(token, josePublicKey, {
        algorithms: ['RS256'],
        typ: kind.typ,
        issuer: ISSUER,
        currentDate: new Date(iat * 1000),
      });
      expect(verified.protectedHeader).toEqual({ alg: 'RS256', kid: signer.kid, typ: kind.typ });
      const raw = await compactVerify(token, josePublicKey);
      expect(Buffer.from(raw.payload).toString()).toBe(Buffer.from(payloadSegment, 'base64url').toString());
    }
  });

  test('the claims JSON is signed as given: payload bytes are the claims string', async () => {
    const { signer } = await setup();
    const claims = '{"b":1,"a":"é\\u0000","n":[1,2]}';
    const token = await signJws(signer, 'JWT', claims);
    expect(Buffer.from(token.split('.')[1]!, 'base64url').toString()).toBe(claims);
  });

  test('re-minting the same claims gives the same token (RSASSA-PKCS1-v1_5 is deterministic)', async () => {
    const { signer } = await setup();
    const input = {
      issuer: ISSUER,
      audience: AUDIENCE,
      sid: newSid(),
      iat,
      ttlSeconds: 600,
      jti: 'jti-fixed',
    };
    const first = await mintRefreshToken(signer, { ...input, rotationVersion: 2 });
    const again = await Promise.all(
      Array.from({ length: 4 }, () => mintRefreshToken(signer, { ...input, rotationVersion: 2 })),
    );
    for (const t of again) expect(t.token).toBe(first.token);
    const access = await mintAccessToken(signer, { ...input, subject: 's' });
    expect((await mintAccessToken(signer, { ...input, subject: 's' })).token).toBe(access.token);
    expect((await mintRefreshToken(signer, { ...input, rotationVersion: 3 })).token).not.toBe(first.token);
  });

  test('tokens signed by a different key do not verify under this key (jose as the judge)', async () => {
    const a = await setup();
    const b = await setup();
    const { token } = await mintAccessToken(b.signer, {
      issuer: ISSUER,
      audience: AUDIENCE,
      sid: newSid(),
      iat,
      ttlSeconds: 600,
      subject: 's',
    });
    await expect(compactVerify(token, a.josePublicKey)).rejects.toThrow();
    await expect(compactVerify(token, b.josePublicKey)).resolves.toBeDefined();
  });

  test('the signer shows no key material when logged or serialised', async () => {
    const { signer, pem, g } = await setup();
    const body = pem.split('\n')[1]!;
    const views = [
      JSON.stringify(signer),
      inspect(signer, { depth: 10, showHidden: true }),
      String(signer.key),
    ];
    for (const view of views) {
      expect(view).not.toContain(body);
      expect(view).not.toContain('PRIVATE KEY');
    }
    // Only the public half is importable for verification, and it is the published JWK's.
    const pub = importVerificationKey(g.publicJwk);
    expect(pub.type).toBe('public');
    expect(pub.export({ format: 'jwk' })).toEqual({ kty: 'RSA', n: g.publicJwk.n, e: g.publicJwk.e });
  });

  test('import refuses keys that are not RSA of at least 2048 bits', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    for (const key of [ec, small]) {
      const sealed = seal(kek, key.export({ format: 'pem', type: 'pkcs8' }), 'kid-x');
      expect(() => importSigningKey(kek, 'kid-x', sealed)).toThrow(/RSA private key of at least 2048 bits/);
    }
    const g = generateSigningKey(kek);
    expect(() => importSigningKey(kek, 'another-kid', g.privateKeyEnc)).toThrow();
    expect(importSigningKey(kek, g.kid, g.privateKeyEnc).type).toBe('private');
  });
});
