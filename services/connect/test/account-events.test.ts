// The account page's changes tell the applications (#39, CONTRACTS "Events to applications"): adding a passkey
// writes credential-change (create), removing one credential-change (delete) and session-revoked
// (credential_removed) for each session it ended, resetting a sector's identifier identifier-changed (the old
// subject) and session-revoked (identifier_reset) for that sector only, and an OIDC session so ended its client's
// back-channel logout token; each in the change's transaction, with the change's audit row id as every row's txn.
// Over HTTP with software passkeys, rows read back exactly.
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { createOidcClient, setEventSubscription } from '@svc/provisioning';
import {
  type Agent,
  makeAgent,
  provisionAccount,
  provisionApp,
  softPasskey,
  softRegistration,
} from '@svc/testkit';
import { useConnectHost } from './helpers';

jest.setTimeout(60_000);

const cx = useConnectHost({ hostname: 'localhost' });
const RECEIVER = 'http://127.0.0.1:9/events';
const BACKCHANNEL = 'http://127.0.0.1:9/backchannel';

/** An application subscribed to every event (`subscribe`), in `sectorId` or a sector of its own. */
async function app(opts: { sectorId?: string; subscribe?: boolean; oidc?: boolean } = {}) {
  const made = await provisionApp(cx.infra, { sectorId: opts.sectorId, methods: opts.oidc ? ['OIDC'] : [] });
  if (opts.subscribe !== false)
    await setEventSubscription(
      cx.infra.provisioning,
      { production: false, allowPrivate: false },
      made.anchor,
      { url: RECEIVER, events: [] },
      cx.infra.issuance.clock,
    );
  return made;
}

/**
 * An OIDC session at `anchor` for the account, as the OIDC host issues one (issue-oidc.ts): the session, then its
 * oidc_sessions row naming the client (registered with a back-channel logout URI) and the sign-in's `sid`.
 */
async function oidcSession(anchor: string, accountId: string) {
  const client = await createOidcClient(
    cx.infra.provisioning,
    { anchor, redirectUris: ['https://rp.example/cb'], backchannelLogoutUri: BACKCHANNEL },
    { production: false, allowPrivate: false },
  );
  const row = await cx.infra.db.oidcClient.findUniqueOrThrow({ where: { clientId: client.clientId } });
  const issued = await issueSession(cx.infra.issuance, {
    application: (await createApplicationsStore(cx.infra.db).loadApplication({ anchor }))!,
    principal: { kind: 'ACCOUNT', accountId },
    authMethod: 'OIDC',
    protocol: 'OIDC',
  });
  const idTokenSid = `sid-${issued.sid}`;
  await cx.infra.db.oidcSession.create({
    data: {
      sid: issued.sid,
      oidcClientId: row.id,
      clientId: client.clientId,
      amr: ['hwk', 'user'],
      idTokenSid,
    },
  });
  return { ...issued, clientId: client.clientId, idTokenSid };
}

/**
 * A person with two passkeys and a session at each of: `a` and `b` (one sector, both subscribed; `a` also an OIDC
 * session of its back-channel client), `c` (another sector, subscribed) and `quiet` (a's sector, not subscribed);
 * signed in on the account page.
 */
async function person() {
  const a = await app({ oidc: true });
  const b = await app({ sectorId: a.sectorId });
  const quiet = await app({ sectorId: a.sectorId, subscribe: false });
  const c = await app();
  const account = await provisionAccount(cx.infra);
  const issue = async (anchor: string) =>
    issueSession(cx.infra.issuance, {
      application: (await createApplicationsStore(cx.infra.db).loadApplication({ anchor }))!,
      principal: { kind: 'ACCOUNT', accountId: account.id },
      authMethod: 'ACCESS_KEY_DIRECT',
    });
  const sessions = { a: await issue(a.anchor), b: await issue(b.anchor), c: await issue(c.anchor) };
  await issue(quiet.anchor);
  const oidc = await oidcSession(a.anchor, account.id);
  const first = await softPasskey(cx.infra, account.id);
  const second = await softPasskey(cx.infra, account.id);
  const agent = makeAgent(cx.host.url);
  await agent.request('/account');
  const options = await agent.json('/account/passkey/authentication-options', {});
  const { challenge } = JSON.parse(options.text) as { challenge: string };
  const signedIn = await agent.json(
    '/account/passkey/authentication',
    first.assert({ challenge, origin: cx.host.url, rpId: 'localhost' }),
  );
  expect(signedIn.res.status).toBe(200);
  await agent.request('/account');
  return { apps: { a, b, c, quiet }, account, sessions, oidc, first, second, agent };
}

type Person = Awaited<ReturnType<typeof person>>;

/** The outbox rows of the person's applications, as [anchor, payload, txn], in a stable order (logout tokens last). */
async function rowsOf(p: Person) {
  const byId = new Map(Object.values(p.apps).map((x) => [x.applicationId, x.anchor]));
  const rows = await cx.infra.db.eventOutbox.findMany({ where: { applicationId: { in: [...byId.keys()] } } });
  for (const r of rows)
    expect([r.kind, r.targetUrl, r.status]).toEqual(
      r.kind === 'backchannel-logout'
        ? ['backchannel-logout', BACKCHANNEL, 'PENDING']
        : ['security-event', RECEIVER, 'PENDING'],
    );
  return sorted(rows.map((r) => [byId.get(r.applicationId ?? '')!, r.payload, r.txn] as const));
}

/** JSON with object keys in order: PostgreSQL's jsonb reorders them. */
const canon = (x: unknown) =>
  JSON.stringify(x, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
  );
const sorted = <T>(xs: readonly T[]) => [...xs].sort((x, y) => canon(x).localeCompare(canon(y)));

/** The back-channel logout row of an OIDC session (OIDC Back-Channel Logout 1.0: the client, sub and sid). */
const logout = (s: { clientId: string; subject: string; idTokenSid: string }) => ({
  clientId: s.clientId,
  subject: s.subject,
  sid: s.idTokenSid,
});

/** The account's one audit row of `action`. */
async function auditOf(accountId: string, action: string) {
  const rows = await cx.infra.db.auditEvent.findMany({ where: { targetId: accountId, action } });
  expect(rows).toHaveLength(1);
  expect([rows[0]!.actorKind, rows[0]!.actorId, rows[0]!.targetType]).toEqual([
    'person',
    accountId,
    'account',
  ]);
  return rows[0]!;
}

const statusOf = async (sid: string) =>
  (await cx.infra.db.session.findUniqueOrThrow({ where: { id: sid } })).status;

async function addPasskey(agent: Agent) {
  const options = await agent.json('/account/passkey/registration-options', {});
  expect(options.res.status).toBe(200);
  const { challenge } = JSON.parse(options.text) as { challenge: string };
  const made = softRegistration({ challenge, origin: cx.host.url, rpId: 'localhost' });
  const done = await agent.json('/account/passkey/registration', made.body);
  expect([done.res.status, done.text]).toEqual([200, JSON.stringify({ next: '/account' })]);
  return made;
}

test('adding a passkey: credential-change (create) to each subscribed application that knows the person, one txn: the audit row', async () => {
  const p = await person();
  const made = await addPasskey(p.agent);
  expect(await cx.infra.db.passkey.count({ where: { credentialId: made.credentialId } })).toBe(1);
  const audit = await auditOf(p.account.id, 'passkey.add');
  const event = (subject: string) => ({ event: 'credential-change', subject, changeType: 'create' });
  expect(await rowsOf(p)).toEqual(
    sorted([
      [p.apps.a.anchor, event(p.sessions.a.subject), audit.id],
      [p.apps.b.anchor, event(p.sessions.b.subject), audit.id],
      [p.apps.c.anchor, event(p.sessions.c.subject), audit.id],
    ]),
  );
  // Adding changes no session.
  expect(await statusOf(p.sessions.a.sid)).toBe('ACTIVE');
});

test('removing a passkey: credential-change (delete) and session-revoked (credential_removed) per ended session, a logout token for its OIDC one, one txn', async () => {
  const p = await person();
  const second = await cx.infra.db.passkey.findUniqueOrThrow({
    where: { credentialId: p.second.credentialId },
  });
  const res = await p.agent.form(`/account/passkeys/${second.id}/remove`, {});
  expect(res.res.status).toBe(303);
  expect(await cx.infra.db.passkey.count({ where: { id: second.id } })).toBe(0);
  const audit = await auditOf(p.account.id, 'passkey.remove');
  expect((audit.changes as Record<string, { to: unknown }>).passkeyId).toEqual({ from: second.id, to: null });
  const changed = (subject: string) => ({ event: 'credential-change', subject, changeType: 'delete' });
  const revoked = (s: { subject: string; sid: string }) => ({
    event: 'session-revoked',
    subject: s.subject,
    sid: s.sid,
    reason: 'credential_removed',
  });
  expect(await rowsOf(p)).toEqual(
    sorted([
      [p.apps.a.anchor, changed(p.sessions.a.subject), audit.id],
      [p.apps.b.anchor, changed(p.sessions.b.subject), audit.id],
      [p.apps.c.anchor, changed(p.sessions.c.subject), audit.id],
      [p.apps.a.anchor, revoked(p.sessions.a), audit.id],
      [p.apps.a.anchor, revoked(p.oidc), audit.id],
      [p.apps.b.anchor, revoked(p.sessions.b), audit.id],
      [p.apps.c.anchor, revoked(p.sessions.c), audit.id],
      [p.apps.a.anchor, logout(p.oidc), audit.id],
    ]),
  );
  for (const s of [...Object.values(p.sessions), p.oidc]) expect(await statusOf(s.sid)).toBe('REVOKED');
});

test("resetting a sector's identifier: identifier-changed (the old subject) and session-revoked (identifier_reset) in that sector only, a logout token for its OIDC session, one txn", async () => {
  const p = await person();
  const res = await p.agent.form(`/account/sectors/${p.apps.a.sectorId}/reset`, { confirm: 'yes' });
  expect(res.res.status).toBe(303);
  const audit = await auditOf(p.account.id, 'account.reset_subject');
  const renamed = (subject: string) => ({ event: 'identifier-changed', subject });
  const revoked = (s: { subject: string; sid: string }) => ({
    event: 'session-revoked',
    subject: s.subject,
    sid: s.sid,
    reason: 'identifier_reset',
  });
  expect(await rowsOf(p)).toEqual(
    sorted([
      [p.apps.a.anchor, renamed(p.sessions.a.subject), audit.id],
      [p.apps.b.anchor, renamed(p.sessions.b.subject), audit.id],
      [p.apps.a.anchor, revoked(p.sessions.a), audit.id],
      [p.apps.a.anchor, revoked(p.oidc), audit.id],
      [p.apps.b.anchor, revoked(p.sessions.b), audit.id],
      [p.apps.a.anchor, logout(p.oidc), audit.id],
    ]),
  );
  expect([
    await statusOf(p.sessions.a.sid),
    await statusOf(p.oidc.sid),
    await statusOf(p.sessions.c.sid),
  ]).toEqual(['REVOKED', 'REVOKED', 'ACTIVE']);
});

test('renaming a passkey or signing out of the account page tells no application', async () => {
  const p = await person();
  const second = await cx.infra.db.passkey.findUniqueOrThrow({
    where: { credentialId: p.second.credentialId },
  });
  expect(
    (await p.agent.form(`/account/passkeys/${second.id}/rename`, { name: 'Work laptop' })).res.status,
  ).toBe(303);
  expect((await p.agent.form('/account/sign-out', {})).res.status).toBe(303);
  expect(await rowsOf(p)).toEqual([]);
  for (const s of Object.values(p.sessions)) expect(await statusOf(s.sid)).toBe('ACTIVE');
});
