// The DPoP proof verifier against every malformed proof of RFC 9449 4.3 (testkit's list, which the SDK's verifier is
// held to as well), each refused by the check it names, for every allowed alg; genuine proofs accepted once.
import { dpopKey, dpopProof, malformedProofs, proofParts, signProof } from '@svc/testkit';
import { accessTokenHash, DpopProofError, type DpopReplay, normalizeHtu, verifyDpopProof } from './dpop';

const HTU = 'https://oidc.example.test/token';
const NOW = 1_800_000_000;

function memoryReplay(): DpopReplay {
  const seen = new Set<string>();
  return async (jkt, jti) => {
    const k = `${jkt}:${jti}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  };
}

async function failureOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    return err instanceof DpopProofError ? err.failure : `threw ${String(err)}`;
  }
}

describe.each(['ES256', 'EdDSA', 'RS256'] as const)('verifyDpopProof %s', (alg) => {
  it('accepts a genuine proof once and gives its key thumbprint', async () => {
    const key = await dpopKey(alg);
    const replay = memoryReplay();
    const proof = dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW });
    const check = { proof, method: 'POST', url: HTU, now: NOW * 1000, replay };
    const verified = await verifyDpopProof(check);
    expect(verified.jkt).toBe(key.jkt);
    expect(await failureOf(verifyDpopProof(check))).toBe('replayed');
  });

  it('refuses every malformed proof by the check it fails', async () => {
    const key = await dpopKey(alg);
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const bad = await malformedProofs(key, { htm: 'GET', htu: HTU, iat: NOW, accessToken: token });
    expect(bad.length).toBeGreaterThan(35);
    const got = await Promise.all(
      bad.map(async (b) => ({
        trick: b.trick,
        failure: await failureOf(
          verifyDpopProof({
            proof: b.proof,
            method: 'GET',
            url: HTU,
            accessToken: token,
            now: NOW * 1000,
            replay: memoryReplay(),
          }),
        ),
      })),
    );
    expect(got).toEqual(bad.map((b) => ({ trick: b.trick, failure: b.failure })));
  });

  it('takes iat 60 s either side, the htu without query and fragment, and checks ath only with a token', async () => {
    const key = await dpopKey(alg);
    const replay = memoryReplay();
    for (const iat of [NOW - 60, NOW + 60]) {
      const proof = dpopProof(key, { htm: 'POST', htu: HTU, iat });
      await expect(
        verifyDpopProof({ proof, method: 'POST', url: HTU, now: NOW * 1000, replay }),
      ).resolves.toMatchObject({ jkt: key.jkt });
    }
    const withQuery = dpopProof(key, {
      htm: 'POST',
      htu: 'HTTPS://OIDC.example.test:443/token?x=1#f',
      iat: NOW,
    });
    await expect(
      verifyDpopProof({ proof: withQuery, method: 'POST', url: `${HTU}?y=2`, now: NOW * 1000, replay }),
    ).resolves.toMatchObject({ jkt: key.jkt });
    const token = 'abc.def.ghi';
    const bound = dpopProof(key, { htm: 'GET', htu: HTU, iat: NOW, accessToken: token });
    await expect(
      verifyDpopProof({ proof: bound, method: 'GET', url: HTU, accessToken: token, now: NOW * 1000, replay }),
    ).resolves.toMatchObject({ jkt: key.jkt });
  });
});

it('takes Ed25519, EdDSA’s fully specified name (RFC 9864), for an Ed25519 key and no other', async () => {
  const key = await dpopKey('EdDSA');
  const { header, claims } = proofParts(key, { htm: 'POST', htu: HTU, iat: NOW });
  const check = (proof: string) =>
    verifyDpopProof({ proof, method: 'POST', url: HTU, now: NOW * 1000, replay: memoryReplay() });
  await expect(check(signProof(key, { ...header, alg: 'Ed25519' }, claims))).resolves.toMatchObject({
    jkt: key.jkt,
  });
  const ec = await dpopKey('ES256');
  const p = proofParts(ec, { htm: 'POST', htu: HTU, iat: NOW });
  expect(await failureOf(check(signProof(ec, { ...p.header, alg: 'Ed25519' }, p.claims)))).toBe('jwk');
});

it('fails closed when the replay set cannot answer', async () => {
  const key = await dpopKey('ES256');
  const down = new Error('Connection is closed');
  const proof = dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW });
  await expect(
    verifyDpopProof({ proof, method: 'POST', url: HTU, now: NOW * 1000, replay: () => Promise.reject(down) }),
  ).rejects.toBe(down);
});

it('keeps a jti for the whole window any replica would take the proof in', async () => {
  const key = await dpopKey('EdDSA');
  let ttl = 0;
  const proof = dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW + 30 });
  await verifyDpopProof({
    proof,
    method: 'POST',
    url: HTU,
    now: NOW * 1000,
    replay: async (_k, _j, seconds) => {
      ttl = seconds;
      return true;
    },
  });
  // Acceptable until iat + 60 (90 s from now), plus 60 s of replicas' clocks apart.
  expect(ttl).toBeGreaterThanOrEqual(150);
});

it('normalises htu and hashes access tokens as RFC 9449 says', () => {
  expect(normalizeHtu('HTTPS://Server.Example.com:443/token?q=1#frag')).toBe(
    'https://server.example.com/token',
  );
  expect(normalizeHtu('/token')).toBeUndefined();
  expect(normalizeHtu('ftp://x/y')).toBeUndefined();
  // RFC 9449 7.1's example token and its ath.
  expect(accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe(
    'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
  );
});
