// DPoP in the package and at the session host (RFC 9449): a DPoP-bound access token (cnf.jkt) is accepted by the
// verifier only with the request's proof by its key, and every malformed proof of testkit's list (the hosts' own
// vectors) is refused naming the same check the hosts name; the session host's /userinfo takes the token as DPoP
// and refuses it as Bearer, /introspect reports cnf; the package's OIDC client signs in, reads /userinfo and
// refreshes with DPoP, and its bound refresh token is refused without its key.
import {
  createDpopSigner,
  createOidcClient,
  createVerifier,
  TokenVerificationError,
} from '@signin-service/node';
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { createOidcClient as registerOidcClient } from '@svc/provisioning';
import { passkeySignInReferences } from '@svc/signin';
import {
  dpopKey,
  dpopProof,
  malformedProofs,
  provisionAccount,
  provisionApp,
  useStarted,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import type { OidcDeps } from '../../../services/oidc/src/deps';
import { createAuthorizationCode } from '../../../services/oidc/src/domain/authorization';
import { startFleet } from './fleet';

const fleet = useStarted(() => startFleet({ hosts: ['session', 'oidc'] }));

async function boundSession(jkt: string | undefined) {
  const app = await provisionApp(fleet.infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const account = await provisionAccount(fleet.infra);
  const application = await createApplicationsStore(fleet.infra.db).loadApplication({ anchor: app.anchor });
  const issued = await issueSession(fleet.infra.issuance, {
    application: application!,
    principal: { kind: 'ACCOUNT', accountId: account.id },
    authMethod: 'ACCESS_KEY_DIRECT',
    dpopJkt: jkt,
  });
  return { anchor: app.anchor, token: issued.accessToken };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    if (err instanceof TokenVerificationError) return err.message;
    throw err;
  }
}

const API = 'https://api.example.test/orders';

describe('the verifier with DPoP', () => {
  it('accepts a bound token with a proof by its key, once; refuses it without one, by another key, or as Bearer', async () => {
    const key = await dpopKey();
    const { anchor, token } = await boundSession(key.jkt);
    const verifier = createVerifier({
      sessionUrl: fleet.urls.session,
      applicationAnchor: anchor,
      issuer: fleet.issuer,
    });
    const proof = dpopProof(key, { htm: 'GET', htu: API, accessToken: token });
    const dpop = { proof, method: 'GET', url: `${API}?page=2` };
    const verified = await verifier.verify(token, { dpop });
    expect(verified.cnf).toEqual({ jkt: key.jkt });
    expect(await refusal(verifier.verify(token, { dpop }))).toBe('DpopProofInvalid: replayed');
    expect(await refusal(verifier.verify(token))).toMatch(/^DpopBindingInvalid/);
    const other = await dpopKey('EdDSA');
    const byOther = {
      proof: dpopProof(other, { htm: 'GET', htu: API, accessToken: token }),
      method: 'GET',
      url: API,
    };
    expect(await refusal(verifier.verify(token, { dpop: byOther }))).toMatch(/^DpopBindingInvalid/);
    const fresh = {
      proof: dpopProof(key, { htm: 'GET', htu: API, accessToken: token }),
      method: 'GET',
      url: API,
    };
    expect(await refusal(verifier.verifyAuthorization(`Bearer ${token}`, { dpop: fresh }))).toMatch(
      /^DpopBindingInvalid/,
    );
    expect((await verifier.verifyAuthorization(`DPoP ${token}`, { dpop: fresh })).sub).toBe(verified.sub);
  });

  it('refuses an unbound token presented with a proof (the DPoP scheme)', async () => {
    const key = await dpopKey();
    const { anchor, token } = await boundSession(undefined);
    const verifier = createVerifier({
      sessionUrl: fleet.urls.session,
      applicationAnchor: anchor,
      issuer: fleet.issuer,
    });
    expect((await verifier.verify(token)).cnf).toBeUndefined();
    const dpop = {
      proof: dpopProof(key, { htm: 'GET', htu: API, accessToken: token }),
      method: 'GET',
      url: API,
    };
    expect(await refusal(verifier.verifyAuthorization(`DPoP ${token}`, { dpop }))).toMatch(
      /^DpopBindingInvalid/,
    );
  });

  it.each(['ES256', 'EdDSA', 'RS256'] as const)(
    'refuses every malformed %s proof by the check the hosts name',
    async (alg) => {
      const key = await dpopKey(alg);
      const { anchor, token } = await boundSession(key.jkt);
      const verifier = createVerifier({
        sessionUrl: fleet.urls.session,
        applicationAnchor: anchor,
        issuer: fleet.issuer,
      });
      const bad = await malformedProofs(key, { htm: 'GET', htu: API, accessToken: token });
      const got: string[] = [];
      for (const b of bad) {
        got.push(
          `${b.trick}: ${await refusal(verifier.verify(token, { dpop: { proof: b.proof, method: 'GET', url: API } }))}`,
        );
      }
      expect(got).toEqual(bad.map((b) => `${b.trick}: DpopProofInvalid: ${b.failure}`));
    },
  );
});

describe('the session host with DPoP', () => {
  it('/userinfo takes a bound token as DPoP with its proof, refuses it as Bearer; /introspect reports cnf', async () => {
    const key = await dpopKey();
    const { token } = await boundSession(key.jkt);
    const url = `${fleet.urls.session}/userinfo`;
    const get = (authorization: string, proof?: string) =>
      fetch(url, { headers: { authorization, ...(proof ? { dpop: proof } : {}) } });
    const ok = await get(`DPoP ${token}`, dpopProof(key, { htm: 'GET', htu: url, accessToken: token }));
    expect(ok.status).toBe(200);
    const bearer = await get(`Bearer ${token}`);
    expect([bearer.status, (await bearer.json()).error]).toEqual([401, 'invalid_token']);
    expect(bearer.headers.get('www-authenticate')).toMatch(/^DPoP realm="session", algs="ES256 EdDSA RS256"/);
    const bad = await malformedProofs(key, { htm: 'GET', htu: url, accessToken: token });
    const answers: string[] = [];
    for (const b of bad.filter((x) => x.failure !== 'missing')) {
      const res = await get(`DPoP ${token}`, b.proof);
      answers.push(`${b.trick}: ${res.status} ${(await res.json()).error}`);
    }
    expect(answers).toEqual(
      bad.filter((x) => x.failure !== 'missing').map((b) => `${b.trick}: 401 invalid_dpop_proof`),
    );

    const introspect = async (accessToken: string) =>
      (
        await fetch(`${fleet.urls.session}/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ accessToken }),
        })
      ).json();
    expect(await introspect(token)).toMatchObject({ status: 'active', cnf: { jkt: key.jkt } });
    const plain = await boundSession(undefined);
    expect(await introspect(plain.token)).not.toHaveProperty('cnf');
  });
});

describe("the package's OIDC client with DPoP", () => {
  it('exchanges the code, reads /userinfo and refreshes with proofs; the bound refresh token needs the key', async () => {
    const oidcDeps = fleet.deps.oidc as OidcDeps;
    await ensureActiveKey(fleet.infra.db, fleet.infra.issuance.kek, OIDC_SCOPE, new Date());
    const app = await provisionApp(fleet.infra, { methods: ['OIDC'] });
    const account = await provisionAccount(fleet.infra);
    const redirectUri = 'https://rp.example.test/cb';
    const { clientId } = await registerOidcClient(fleet.infra.provisioning, {
      anchor: app.anchor,
      redirectUris: [redirectUri],
      authMethod: 'none',
    });
    const signer = await createDpopSigner();
    const rp = createOidcClient({ issuer: fleet.urls.oidc, clientId, redirectUri, dpop: signer });
    const { url, pending } = await rp.authorizationRequest({ scope: 'openid email offline_access' });
    const q = new URL(url).searchParams;
    // What /authorize hands over after the person signs in (the pages are tested elsewhere).
    const code = await createAuthorizationCode(oidcDeps, {
      client: (await oidcDeps.ports.clients.get(clientId))!,
      accountId: account.id,
      redirectUri,
      scope: 'openid email offline_access',
      nonce: q.get('nonce')!,
      codeChallenge: q.get('code_challenge')!,
      authTime: new Date(Math.floor(Date.now() / 1000 - 30) * 1000),
      ...passkeySignInReferences(true),
    });
    const tokens = await rp.callback({ code, state: pending.state, iss: fleet.urls.oidc }, pending);
    expect(tokens.tokenType).toBe('DPoP');
    expect(decodeJwt(tokens.accessToken).cnf).toEqual({ jkt: signer.jkt });
    expect((await rp.userinfo(tokens.accessToken)).sub).toBe(tokens.claims.sub);

    const refreshed = await rp.refresh(tokens.refreshToken!);
    expect([refreshed.tokenType, decodeJwt(refreshed.accessToken).cnf]).toEqual([
      'DPoP',
      { jkt: signer.jkt },
    ]);
    // The same refresh token from a client with another key: invalid_grant.
    const thief = createOidcClient({ issuer: fleet.urls.oidc, clientId, redirectUri, dpop: true });
    await expect(thief.refresh(refreshed.refreshToken!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const noKey = createOidcClient({ issuer: fleet.urls.oidc, clientId, redirectUri });
    await expect(noKey.refresh(refreshed.refreshToken!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await rp.refresh(refreshed.refreshToken!)).tokenType).toBe('DPoP');
  });
});
