// The package's verifier against a real session host's JWK Set: genuine account and workload tokens, every forged
// token of testkit's forgeAll and the named tricks, the cache (one fetch, Cache-Control), the floor against
// floods of forged kids, `keys rotate --now` (the new kid accepted on its first presentation) and emergency
// revocation (refused once the cached set's lifetime passes).
import { createHmac } from 'node:crypto';
import { createVerifier, TokenVerificationError, type Verifier } from '@signin-service/node';
import { publishKeyChange } from '@svc/keyring';
import { revokeKeyNow, rotateKeysNow } from '@svc/provisioning';
import { appTokenTarget, forgeAll, settableClock, useStarted, waitUntil } from '@svc/testkit';
import {
  importVerificationKey,
  mintAccessToken,
  peekToken,
  TYP,
  verifyApplicationToken,
} from '@svc/token-core';
import { startFleet } from './fleet';
import { appWithSessions, issueFor, kidOf } from './tokens';

const fleet = useStarted(() => startFleet({ hosts: ['session'], env: { JWKS_MAX_AGE_SECONDS: '2' } }));

/** A fetch that counts the key-set fetches it passes on. */
function countingFetch() {
  const counter = {
    count: 0,
    fetch: (input: string, init: RequestInit) => {
      counter.count += 1;
      return fetch(input, init);
    },
  };
  return counter;
}

function verifierFor(anchor: string, extra: Partial<Parameters<typeof createVerifier>[0]> = {}): Verifier {
  return createVerifier({
    sessionUrl: fleet.urls.session,
    applicationAnchor: anchor,
    issuer: fleet.issuer,
    ...extra,
  });
}

async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    if (err instanceof TokenVerificationError) return err.reason;
    throw err;
  }
}

/** `pnpm admin keys rotate --app A --now`, announced to the host's key ring as the admin tool does. */
const rotateNow = (anchor: string) =>
  rotateKeysNow(
    fleet.infra.provisioning,
    fleet.infra.issuance.kek,
    anchor,
    { publishedSeconds: 2, keyCacheTtlMs: 0 },
    Date.now,
  );

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

test('a genuine account token verifies once the set is fetched; the set is fetched once for many tokens', async () => {
  const { app, human } = await appWithSessions(fleet.infra);
  const counter = countingFetch();
  const verifier = verifierFor(app.anchor, { fetch: counter.fetch });
  const verified = await verifier.verify(human.accessToken);
  expect(verified).toMatchObject({ aud: app.anchor, iss: fleet.issuer, kind: 'account' });
  expect(verified.sub).toEqual(expect.any(String));
  expect(verified.act).toBeUndefined();
  for (let i = 0; i < 20; i++) await verifier.verify(human.accessToken);
  expect(counter.count).toBe(1);
  expect(verifier.keySet.jwksUrl).toBe(`${fleet.urls.session}/applications/${app.anchor}/jwks.json`);
});

test('a workload token is refused unless accepted; accepted, it exposes act.sub', async () => {
  const { app, agent, human } = await appWithSessions(fleet.infra);
  const verifier = verifierFor(app.anchor);
  expect(await reasonOf(verifier.verify(agent.accessToken))).toBe('TokenTypeNotAccepted');
  const accepted = await verifier.verify(agent.accessToken, { acceptWorkload: true });
  expect(accepted.kind).toBe('workload');
  expect(accepted.act?.sub).toEqual(expect.any(String));
  expect(accepted.act?.sub).not.toBe(accepted.sub);
  expect(accepted.sub).toBe((await verifier.verify(human.accessToken)).sub);
  const workloadVerifier = verifierFor(app.anchor, { acceptWorkload: true });
  expect((await workloadVerifier.verify(agent.accessToken)).act).toEqual(accepted.act);
});

test('forged, mistyped, foreign, expired, unknown-kid and tampered tokens are refused', async () => {
  const { app, human, agent } = await appWithSessions(fleet.infra);
  const other = await appWithSessions(fleet.infra);
  const verifier = verifierFor(app.anchor);
  const [h, p, s] = human.accessToken.split('.') as [string, string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
  const jwks = (await (await fetch(verifier.keySet.jwksUrl)).json()) as { keys: Record<string, string>[] };
  const publicJwk = jwks.keys.find((k) => k.kid === kidOf(human.accessToken))!;
  const signer = (await fleet.infra.keyRing.signer(app.applicationId))!;
  const now = Math.floor(Date.now() / 1000);
  const expired = await mintAccessToken(signer, {
    issuer: fleet.issuer,
    audience: app.anchor,
    sid: payload.sid,
    subject: payload.sub,
    iat: now - 3600,
    ttlSeconds: 600,
  });
  const hs256 = `${b64({ alg: 'HS256', kid: publicJwk.kid, typ: TYP.accountAccess })}.${p}`;
  const cases: Record<string, [string, string]> = {
    'alg none': [
      `${b64({ alg: 'none', kid: publicJwk.kid, typ: TYP.accountAccess })}.${p}.`,
      'TokenMalformed',
    ],
    'HS256 keyed with the public key': [
      `${hs256}.${createHmac('sha256', JSON.stringify(publicJwk)).update(hs256).digest('base64url')}`,
      'TokenMalformed',
    ],
    'refresh token as access token': [human.refreshToken, 'TokenTypeNotAccepted'],
    'workload token': [agent.accessToken, 'TokenTypeNotAccepted'],
    'token of another application': [other.human.accessToken, 'TokenAudienceInvalid'],
    expired: [expired.token, 'TokenExpired'],
    'unknown kid': [
      `${b64({ alg: 'RS256', kid: 'rk_unknown', typ: TYP.accountAccess })}.${p}.${s}`,
      'TokenKeyUnknown',
    ],
    'tampered payload': [`${h}.${b64({ ...payload, sub: 'someone-else' })}.${s}`, 'TokenSignatureInvalid'],
    'tampered signature': [
      `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`,
      'TokenSignatureInvalid',
    ],
    empty: ['', 'TokenMissing'],
    'not a JWT': ['hello', 'TokenMalformed'],
  };
  for (const [name, [token, reason]] of Object.entries(cases)) {
    expect({ name, reason: await reasonOf(verifier.verify(token)) }).toEqual({ name, reason });
  }
  expect(await reasonOf(verifier.verifyAuthorization(undefined))).toBe('TokenMissing');
  expect(await reasonOf(verifier.verifyAuthorization(`Basic ${human.accessToken}`))).toBe('TokenMissing');
  expect((await verifier.verifyAuthorization(`Bearer ${human.accessToken}`)).sub).toBe(payload.sub);
});

test('every forgeAll trick: refused, unless the hosts own verification accepts the very same token', async () => {
  const { app, human } = await appWithSessions(fleet.infra);
  const verifier = verifierFor(app.anchor);
  const target = await appTokenTarget(
    fleet.infra.keyRing,
    app.applicationId,
    human.accessToken,
    TYP.accountAccess,
  );
  const key = importVerificationKey(target.publicJwk as never);
  const forged = forgeAll(target);
  expect(forged.length).toBeGreaterThan(30);
  for (const { trick, jws } of forged) {
    let host = 'accepted';
    try {
      const peek = peekToken(jws);
      if (peek.kid !== target.kid) throw new Error('unknown kid');
      await verifyApplicationToken(
        jws,
        { typ: [TYP.accountAccess], issuer: fleet.issuer, audience: app.anchor, key, now: Date.now() },
        peek,
      );
    } catch {
      host = 'refused';
    }
    const sdk = (await reasonOf(verifier.verify(jws))) === 'accepted' ? 'accepted' : 'refused';
    expect({ trick, sdk }).toEqual({ trick, sdk: host });
  }
});

test('a flood of forged kids fetches the set at most once a second', async () => {
  const { app, human } = await appWithSessions(fleet.infra);
  const counter = countingFetch();
  const verifier = verifierFor(app.anchor, { fetch: counter.fetch, minRefetchMs: 60_000 });
  await verifier.verify(human.accessToken);
  const [, p, s] = human.accessToken.split('.');
  const forged = Array.from(
    { length: 200 },
    (_, i) => `${b64({ alg: 'RS256', kid: `rk_forged_${i}`, typ: TYP.accountAccess })}.${p}.${s}`,
  );
  const reasons = await Promise.all(forged.map((t) => reasonOf(verifier.verify(t))));
  expect(new Set(reasons)).toEqual(new Set(['TokenKeyUnknown']));
  // The first fetch loaded the set; within the floor (60 s here) no unknown kid causes another.
  expect(counter.count).toBe(1);
});

test('keys rotate --now: a token under the new kid is accepted on its first presentation', async () => {
  const { app, account, human } = await appWithSessions(fleet.infra);
  const counter = countingFetch();
  const clock = settableClock();
  const verifier = verifierFor(app.anchor, { fetch: counter.fetch, now: clock });
  const oldKid = kidOf(human.accessToken);
  await verifier.verify(human.accessToken);
  await rotateNow(app.anchor);
  let fresh = human;
  await waitUntil(async () => {
    fresh = await issueFor(fleet.infra, app.anchor, { kind: 'ACCOUNT', accountId: account.id });
    return kidOf(fresh.accessToken) !== oldKid;
  });
  // Inside the set's lifetime (max-age=2) but past the 1 s floor: only the unknown kid makes it fetch again.
  clock.advance(1100);
  const fetchesBefore = counter.count;
  const verified = await verifier.verify(fresh.accessToken);
  expect(verified.sub).toBe((await verifier.verify(human.accessToken)).sub);
  expect(counter.count).toBe(fetchesBefore + 1);
});

test('emergency revocation: the revoked key is refused once the cached set lifetime (JWKS_MAX_AGE_SECONDS) passes', async () => {
  const { app, account, human } = await appWithSessions(fleet.infra);
  const clock = settableClock();
  const verifier = verifierFor(app.anchor, { now: clock });
  const oldKid = kidOf(human.accessToken);
  await verifier.verify(human.accessToken);
  await rotateNow(app.anchor);
  await revokeKeyNow(fleet.infra.provisioning, fleet.infra.issuance.kek, app.anchor, oldKid, Date.now);
  await publishKeyChange(fleet.infra.redis, app.applicationId);
  await waitUntil(async () => {
    const set = (await (await fetch(verifier.keySet.jwksUrl)).json()) as { keys: { kid: string }[] };
    return !set.keys.some((k) => k.kid === oldKid);
  });
  // Within the lifetime the host gave the cached set (max-age=2), the spec lets a verifier keep accepting it.
  clock.advance(1000);
  expect((await verifier.verify(human.accessToken)).sub).toEqual(expect.any(String));
  // Past it, the set is fetched again and the revoked kid is gone from it.
  clock.advance(1500);
  expect(await reasonOf(verifier.verify(human.accessToken))).toBe('TokenKeyUnknown');
  void account;
});
