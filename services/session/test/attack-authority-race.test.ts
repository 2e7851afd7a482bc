// Issue 25's last gap, at /introspect: a passkey removal moves the account's authority and revokes its sessions in
// one transaction, but a session whose insert was already running (its statement's snapshot still saw the old
// authority version) commits after that revocation and is never revoked. Its access token must not introspect
// `active` on any replica: refresh would refuse it (AuthorizationArtifactStale) and revoke it, and /userinfo refuses
// it already. Everything runs through the real stores and SQL (the issuance core's insert, connect's removal
// statement and announcement); the only help is a row lock that holds the insert in flight while the removal commits.
import { holdInTransaction, postJson, softPasskey, waitUntil } from '@svc/testkit';
import { removePasskey } from '../../connect/src/domain/account-page';
import { createAccountChanges, createAccountPageStore } from '../../connect/src/store/account-page';
import { freshSession, issueFor, type SessionHarness, startSessionHost } from './support';

let a: SessionHarness;
let b: SessionHarness;
beforeAll(async () => {
  // Two replicas, each with its own session cache (SESSION_CACHE_MS as deployed) and change subscriber.
  [a, b] = await Promise.all([startSessionHost(), startSessionHost()]);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const introspect = async (host: SessionHarness, accessToken: string) => {
  const res = await postJson(`${host.url}/introspect`, { accessToken });
  expect(res.status).toBe(200);
  return res.body as { status: string; recommendedRecheckSeconds: number };
};

/** What each replica answers: [a's status, b's status]. */
const onBoth = async (accessToken: string) =>
  Promise.all([a, b].map(async (host) => (await introspect(host, accessToken)).status));

test('a session inserted across a passkey removal, never revoked, introspects revoked on both replicas', async () => {
  const infra = a.infra;
  // The victim's account with two passkeys (the last one cannot be removed) and a first session, which the
  // removal revokes; it also creates the account's pairwise subject, whose row the hold below locks.
  const s = await freshSession(infra);
  const planted = await softPasskey(infra, s.account.id);
  await softPasskey(infra, s.account.id);
  const { authorityVersion: before } = await infra.db.account.findUniqueOrThrow({
    where: { id: s.account.id },
  });
  // Another account's session: the same read answers it active throughout.
  const bystander = await freshSession(infra);
  expect(await onBoth(s.issued.accessToken)).toEqual(['active', 'active']);
  expect(await onBoth(bystander.issued.accessToken)).toEqual(['active', 'active']);

  // The subject's row locked: a session insert's subject check (FOR SHARE) waits on it, after its statement took
  // its snapshot, so its authority check has already seen version `before`.
  const hold = await holdInTransaction(infra.db, (tx) =>
    tx.$executeRawUnsafe(
      'SELECT 1 FROM sector_subjects WHERE subject = $1 AND retired_at IS NULL FOR UPDATE',
      s.issued.subject,
    ),
  );
  let late!: Awaited<ReturnType<typeof issueFor>>;
  try {
    const issuing = issueFor(infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    await waitUntil(async () => {
      const pids = await hold.waiting();
      if (pids.length === 0) return false;
      const rows = await infra.db.$queryRaw<{ query: string }[]>`
        SELECT query FROM pg_stat_activity WHERE pid = ANY(${pids}::int[])`;
      return rows.some((r) => r.query.includes('INSERT INTO sessions'));
    }, 60_000);

    // The victim removes P (connect's removal: remove, authority + 1, revoke the account's sessions, announce them
    // to every replica's cache) and it commits while the insert is in flight: the row that insert will write is
    // not there to revoke.
    const p = await infra.db.passkey.findFirstOrThrow({ where: { credentialId: planted.credentialId } });
    const ports = {
      accountPage: createAccountPageStore(infra.db),
      accountChanges: createAccountChanges(infra.db, infra.issuance.clock),
      issuance: infra.issuance.ports,
    };
    const removed = await removePasskey(ports, infra.issuance.clock, s.account.id, p.id, true);
    expect(removed).toMatchObject({
      outcome: 'removed',
      authorityVersion: before + 1,
      revoked: [s.issued.sid],
    });
    await hold.release();
    late = await issuing;
  } finally {
    await hold.release();
  }

  // The race's result: a live session issued under the authority the removal ended, its revocation lost.
  const row = await infra.db.session.findUniqueOrThrow({ where: { id: late.sid } });
  expect([row.status, row.authorityVersion]).toEqual(['ACTIVE', before]);
  const account = await infra.db.account.findUniqueOrThrow({ where: { id: s.account.id } });
  expect(account.authorityVersion).toBe(before + 1);

  // Introspection says what the session's refresh would make of it: revoked, terminal, on either replica.
  expect(await onBoth(late.accessToken)).toEqual(['revoked', 'revoked']);
  expect((await introspect(b, late.accessToken)).recommendedRecheckSeconds).toBe(3600);
  // The session the removal did revoke: once its announcement reached both replicas.
  await waitUntil(async () => (await onBoth(s.issued.accessToken)).every((x) => x === 'revoked'));
  expect(await onBoth(bystander.issued.accessToken)).toEqual(['active', 'active']);
  // /userinfo agrees on both.
  for (const host of [a, b]) {
    const res = await fetch(`${host.url}/userinfo`, {
      headers: { authorization: `Bearer ${late.accessToken}` },
    });
    expect(res.status).toBe(401);
  }

  // The refresh: AuthorizationArtifactStale, which revokes the row; introspection's answer does not change.
  const refreshed = await postJson(`${a.url}/refresh`, { refreshToken: late.refreshToken });
  expect([refreshed.status, refreshed.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
  const revoked = await infra.db.session.findUniqueOrThrow({ where: { id: late.sid } });
  expect([revoked.status, revoked.revokedReason]).toEqual(['REVOKED', 'authority_changed']);
  expect(await onBoth(late.accessToken)).toEqual(['revoked', 'revoked']);

  // A sign-in under the new authority introspects active on both.
  const again = await issueFor(infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
  expect(await onBoth(again.accessToken)).toEqual(['active', 'active']);
});
