import { decodeJwt, decodeProtectedHeader } from 'jose';
import { toJwkSet } from './jwks';
import { kekFromBytes, open, seal } from './kek';
import { mintAccessToken, mintRefreshToken, newSid } from './mint';
import { generateSigningKey, importSigningKey, importVerificationKey } from './signing-key';
import { TYP } from './typ';
import { TokenVerificationError, verifyApplicationToken } from './verify';

const kek = kekFromBytes(Buffer.alloc(32, 1));
/** The time every token here is minted and verified at (the callers' clock reading; token rules read none). */
const NOW_MS = 1_800_000_000_000;
const iat = NOW_MS / 1000;

async function signerAndKey() {
  const g = generateSigningKey(kek);
  return {
    g,
    signer: { kid: g.kid, key: importSigningKey(kek, g.kid, g.privateKeyEnc) },
    pub: importVerificationKey(g.publicJwk),
  };
}

describe('token minting and verification', () => {
  it('mints an account access token with exactly the spec header and claims', async () => {
    const { signer, pub } = await signerAndKey();
    const sid = newSid();
    const t = await mintAccessToken(signer, {
      issuer: 'https://iss.test',
      audience: 'my-app',
      sid,
      iat,
      ttlSeconds: 600,
      subject: 'ss_x',
    });
    expect(decodeProtectedHeader(t.token)).toEqual({ alg: 'RS256', kid: signer.kid, typ: TYP.accountAccess });
    expect(Object.keys(decodeJwt(t.token)).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    const v = await verifyApplicationToken(t.token, {
      typ: [TYP.accountAccess],
      issuer: 'https://iss.test',
      audience: 'my-app',
      key: pub,
      now: NOW_MS,
    });
    expect(v.claims.sub).toBe('ss_x');
    expect([v.claims.iat, v.claims.exp]).toEqual([iat, iat + 600]);
  });

  it('mints a workload token with act {sub} and a refresh token without sub', async () => {
    const { signer } = await signerAndKey();
    const common = { issuer: 'https://iss.test', audience: 'my-app', sid: newSid(), iat, ttlSeconds: 600 };
    const w = await mintAccessToken(signer, { ...common, subject: 'ss_owner', actorSubject: 'ss_agent' });
    expect(decodeProtectedHeader(w.token).typ).toBe(TYP.workloadAccess);
    expect(decodeJwt(w.token).act).toEqual({ sub: 'ss_agent' });
    const r = await mintRefreshToken(signer, { ...common, rotationVersion: 3 });
    expect(decodeProtectedHeader(r.token).typ).toBe(TYP.refresh);
    expect(Object.keys(decodeJwt(r.token)).sort()).toEqual([
      'aud',
      'exp',
      'iat',
      'iss',
      'jti',
      'rotationVersion',
      'sid',
    ]);
  });

  it('classifies wrong type, bad signature and expiry', async () => {
    const a = await signerAndKey();
    const b = await signerAndKey();
    const common = { issuer: 'https://iss.test', audience: 'my-app', sid: newSid(), iat };
    const t = await mintAccessToken(a.signer, { ...common, ttlSeconds: 600, subject: 's' });
    const opts = {
      typ: [TYP.refresh],
      issuer: 'https://iss.test',
      audience: 'my-app',
      key: a.pub,
      now: NOW_MS,
    };
    await expect(verifyApplicationToken(t.token, opts)).rejects.toMatchObject({ failure: 'wrong_type' });
    await expect(
      verifyApplicationToken(t.token, { ...opts, typ: [TYP.accountAccess], key: b.pub }),
    ).rejects.toMatchObject({ failure: 'bad_signature' });
    const old = await mintAccessToken(a.signer, { ...common, ttlSeconds: 60, iat: 1_000_000, subject: 's' });
    await expect(
      verifyApplicationToken(old.token, { ...opts, typ: [TYP.accountAccess] }),
    ).rejects.toBeInstanceOf(TokenVerificationError);
    await expect(
      verifyApplicationToken(old.token, { ...opts, typ: [TYP.accountAccess] }),
    ).rejects.toMatchObject({ failure: 'expired' });
    const ok = await verifyApplicationToken(old.token, {
      ...opts,
      typ: [TYP.accountAccess],
      ignoreExpiry: true,
    });
    expect(ok.claims.exp).toBe(1_000_060);
  });

  it('exports a JWK Set with public members only and never cuts it (the lifecycle keeps it at 32)', () => {
    const keys = Array.from({ length: 40 }, () => generateSigningKey(kek).publicJwk);
    const set = toJwkSet(keys);
    expect(set.keys.map((k) => k.kid)).toEqual(keys.map((k) => k.kid));
    expect(new Set(set.keys.map((k) => k.kid)).size).toBe(40);
    for (const k of set.keys) expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });

  it('seals private keys so that a different KEK or owner cannot open them', () => {
    const sealed = seal(kek, 'secret', 'kid-1');
    expect(open(kek, sealed, 'kid-1').toString()).toBe('secret');
    expect(() => open(kek, sealed, 'kid-2')).toThrow();
    expect(() => open(kekFromBytes(Buffer.alloc(32, 2)), sealed, 'kid-1')).toThrow();
  });
});
