// Issue 25's reproduction on the OIDC host, over HTTP with two replicas of one issuer: the attacker signs in on the
// interaction page with passkey P (registered on the victim's account) and keeps the oidc_session cookie and the
// tokens it got; the victim removes P on the account page (connect's removal statement). Then, on either replica,
// prompt=none is login_required, the code minted before is refused at /token, the access token at /userinfo and
// the refresh token at /token. A pre-reset id_token_hint resolves no one.
import { grantClaim } from '@svc/provisioning';
import {
  makeAgent,
  provisionAccount,
  type SignInPage,
  type SoftPasskey,
  signedInAgent,
  softPasskey,
  uniqueName,
} from '@svc/testkit';
import { resetSectorIdentifier } from '../../connect/src/domain/account-page';
import { createAccountChanges, createAccountPageStore } from '../../connect/src/store/account-page';
import {
  authorizeRequestUrl,
  type OidcPagesHost,
  provisionRelyingParty,
  type RelyingPartyFixture,
  startReplicaPair,
} from './pages-kit';

jest.setTimeout(60_000);

let a: OidcPagesHost;
let b: OidcPagesHost;
let rp: RelyingPartyFixture;
const REDIRECT = `https://${uniqueName('rp')}.example/cb`;

beforeAll(async () => {
  [a, b] = await startReplicaPair();
  rp = await provisionRelyingParty(a, { redirectUris: [REDIRECT], claims: { email: 'OPTIONAL' } });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** The client's answer in a 303 to its redirect URI. */
function answerOf(res: Response): Record<string, string> {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return Object.fromEntries(location.searchParams);
}

/** /authorize on a replica with the browser's cookies; the parked request's page, followed once. */
async function authorizeOn(
  host: OidcPagesHost,
  agent: ReturnType<typeof makeAgent>,
  over: Record<string, string>,
) {
  const parked = await agent.request(authorizeRequestUrl(host.address, rp, { state: 's1', ...over }));
  expect(parked.res.status).toBe(303);
  const path = parked.res.headers.get('location') ?? '';
  return { path, answer: await agent.request(`${host.address}${path}`) };
}

async function token(host: OidcPagesHost, fields: Record<string, string>) {
  const basic = Buffer.from(`${rp.clientId}:${rp.clientSecret}`).toString('base64');
  const res = await fetch(`${host.address}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const userinfo = (host: OidcPagesHost, accessToken: string) =>
  fetch(`${host.address}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });

/** The victim with two passkeys: Q (their own) and P (the attacker's, added by an emailed code). */
async function victim(): Promise<{ accountId: string; own: SoftPasskey; planted: SoftPasskey }> {
  const account = await provisionAccount(a.infra);
  await grantClaim(a.infra.provisioning, account.id, rp.anchor, 'email', 'GRANTED');
  return {
    accountId: account.id,
    own: await softPasskey(a.infra, account.id),
    planted: await softPasskey(a.infra, account.id),
  };
}

/**
 * Someone signs in with `passkey` on replica A's interaction page and is answered (a code): their browser, holding
 * the oidc_session cookie, and the code.
 */
async function signsIn(passkey: SoftPasskey, scope = 'openid email offline_access') {
  const agent = makeAgent(a.address);
  const parked = await agent.request(authorizeRequestUrl(a.address, rp, { state: 's0', scope }));
  const path = parked.res.headers.get('location') ?? '';
  const page: SignInPage = {
    base: a.address,
    origin: a.url,
    rpId: 'localhost',
    path,
    flowCookie: 'oidc_flow',
  };
  await signedInAgent(page, passkey, agent);
  const { code } = answerOf((await agent.request(`${a.address}${path}`)).res);
  expect(agent.cookie('oidc_session')).toBeDefined();
  return { agent, code: code as string };
}

test('removing P ends the attacker’s OIDC sign-in and everything it holds, on both replicas', async () => {
  const v = await victim();
  const { agent, code } = await signsIn(v.planted);
  const tokens = await token(b, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
  expect(tokens.status).toBe(200);
  expect((await userinfo(b, tokens.body.access_token as string)).status).toBe(200);
  // Held silently on either replica before the removal.
  const before = await authorizeOn(b, agent, { prompt: 'none' });
  const unused = answerOf(before.answer.res).code as string;
  expect(unused).toEqual(expect.any(String));

  // The victim removes P on the account page (connect's statement: remove, move the authority, revoke).
  const p = await a.infra.db.passkey.findFirstOrThrow({ where: { credentialId: v.planted.credentialId } });
  const removed = await createAccountPageStore(a.infra.db).removePasskey(v.accountId, p.id, new Date());
  expect(removed.outcome).toBe('removed');

  for (const host of [a, b]) {
    const silent = await authorizeOn(host, agent, { prompt: 'none' });
    expect(answerOf(silent.answer.res)).toMatchObject({ error: 'login_required' });
    // Without prompt=none the page asks for a sign-in: the held one is gone.
    const page = await authorizeOn(host, agent, {});
    expect(page.answer.res.status).toBe(200);
    expect(page.answer.text).toContain('passkey');
  }
  // The code minted before the removal does not issue; the tokens it got no longer answer or refresh.
  const late = await token(a, { grant_type: 'authorization_code', code: unused, redirect_uri: REDIRECT });
  expect([late.status, late.body.error]).toEqual([400, 'invalid_grant']);
  for (const host of [a, b])
    expect((await userinfo(host, tokens.body.access_token as string)).status).toBe(401);
  const refreshed = await token(b, {
    grant_type: 'refresh_token',
    refresh_token: tokens.body.refresh_token as string,
  });
  expect(refreshed.status).toBe(400);

  // The owner signs in again with Q and is answered.
  const owner = (await signsIn(v.own, 'openid')).agent;
  expect(answerOf((await authorizeOn(b, owner, { prompt: 'none' })).answer.res).code).toEqual(
    expect.any(String),
  );
});

test('an identifier reset ends the OIDC sign-in; a pre-reset id_token_hint resolves no one', async () => {
  const v = await victim();
  const { agent, code } = await signsIn(v.planted);
  const tokens = await token(a, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
  expect(tokens.status).toBe(200);
  const hint = tokens.body.id_token as string;
  expect(
    answerOf((await authorizeOn(b, agent, { prompt: 'none', id_token_hint: hint })).answer.res).code,
  ).toEqual(expect.any(String));

  const sectorId = (await a.infra.db.application.findUniqueOrThrow({ where: { id: rp.applicationId } }))
    .sectorId;
  const reset = await resetSectorIdentifier(
    {
      accountPage: createAccountPageStore(a.infra.db),
      accountChanges: createAccountChanges(a.infra.db, () => Date.now()),
      issuance: a.infra.issuance.ports,
      resetLimit: { consume: async () => undefined },
    },
    { subjectSecret: a.infra.issuance.subjectSecret, clock: () => Date.now() },
    v.accountId,
    sectorId,
  );
  expect(reset).toBe('reset');
  for (const host of [a, b]) {
    const silent = await authorizeOn(host, agent, { prompt: 'none' });
    expect(answerOf(silent.answer.res)).toMatchObject({ error: 'login_required' });
  }
  // The owner signs in again; a hint from before the reset still names no one: login_required, never a code
  // (which would tell the client the old subject and the new one are the same person).
  const owner = (await signsIn(v.own, 'openid')).agent;
  const hinted = await authorizeOn(b, owner, { prompt: 'none', id_token_hint: hint });
  expect(answerOf(hinted.answer.res)).toMatchObject({ error: 'login_required' });
  expect(answerOf((await authorizeOn(b, owner, { prompt: 'none' })).answer.res).code).toEqual(
    expect.any(String),
  );
});
