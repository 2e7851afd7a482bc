// Races of "reset my identifier" (connect's resetSectorIdentifier: rotate the pairwise subject, then revoke the
// sector's sessions) with itself and with issuance, on two PrismaClients (two pools) over the same PostgreSQL:
// afterwards exactly one live subject per principal and sector, and no live session under a retired subject.
import { type IssuanceDeps, issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { ServiceError } from '@svc/platform';
import { provisionAccount, provisionApp, type TestInfra, useInfra } from '@svc/testkit';
import { resetSectorIdentifier } from '../src/domain/account-page';
import { createAccountChanges, createAccountPageStore } from '../src/store/account-page';

jest.setTimeout(120_000);

const a = useInfra();
const b = useInfra();

const reset = (infra: TestInfra, accountId: string, sectorId: string) =>
  resetSectorIdentifier(
    {
      accountPage: createAccountPageStore(infra.db),
      accountChanges: createAccountChanges(infra.db, () => Date.now()),
      issuance: infra.issuance.ports,
      resetLimit: { consume: async () => undefined },
    },
    { subjectSecret: infra.issuance.subjectSecret, clock: () => Date.now() },
    accountId,
    sectorId,
  );

async function person() {
  const app = await provisionApp(a);
  const account = await provisionAccount(a);
  const application = (await createApplicationsStore(a.db).loadApplication({ anchor: app.anchor }))!;
  const issue = (deps: IssuanceDeps) =>
    issueSession(deps, {
      application,
      principal: { kind: 'ACCOUNT', accountId: account.id },
      authMethod: 'ACCESS_KEY_DIRECT',
    });
  // A first session: the sector is one the person has used, and the subject exists.
  await issue(a.issuance);
  return { app, account, issue };
}

/** Live sessions of the account whose subject is retired, and the live subjects of the account in the sector. */
async function invariants(accountId: string, sectorId: string) {
  const [underRetired] = await a.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM sessions s JOIN sector_subjects ss ON ss.subject = s.subject
    WHERE s.account_id = ${accountId}::uuid AND s.status = 'ACTIVE' AND ss.retired_at IS NOT NULL`;
  const live = await a.db.sectorSubject.count({
    where: { sectorId, principalKind: 'ACCOUNT', principalId: accountId, retiredAt: null },
  });
  return { liveUnderRetiredSubject: underRetired!.n, liveSubjects: live };
}

/** An issuance that stops after reading the current subject (at its signing key) until `release` is called. */
function pausedAtSigner(base: IssuanceDeps) {
  let reached!: () => void;
  let release!: () => void;
  const atSigner = new Promise<void>((r) => {
    reached = r;
  });
  const held = new Promise<void>((r) => {
    release = r;
  });
  const keyRing: IssuanceDeps['keyRing'] = Object.create(base.keyRing);
  keyRing.signer = async (applicationId: string) => {
    reached();
    await held;
    return base.keyRing.signer(applicationId);
  };
  return { deps: { ...base, keyRing }, atSigner, release };
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );

test('a reset completed while an issuance holds the old subject: the issuance is refused, never a live session under it', async () => {
  const { app, account, issue } = await person();
  const paused = pausedAtSigner(b.issuance);
  const issuing = settle(issue(paused.deps));
  await paused.atSigner;
  // The issuance (pool b) has read the current subject; the whole reset runs on pool a meanwhile.
  expect(await reset(a, account.id, app.sectorId)).toBe('reset');
  paused.release();
  const outcome = await issuing;
  expect(await invariants(account.id, app.sectorId)).toEqual({ liveUnderRetiredSubject: 0, liveSubjects: 1 });
  expect('err' in outcome && outcome.err instanceof ServiceError && outcome.err.reason).toBe(
    'AuthorizationArtifactStale',
  );
  // A retry reads the new subject and issues.
  const again = await issue(b.issuance);
  const current = await a.db.sectorSubject.findFirstOrThrow({
    where: { sectorId: app.sectorId, principalId: account.id, retiredAt: null },
  });
  expect(again.subject).toBe(current.subject);
});

test('resets and issuances at once on two pools: one live subject, consecutive generations, nothing live under a retired one', async () => {
  const { app, account, issue } = await person();
  for (let round = 0; round < 12; round++) {
    const outcomes = await Promise.all([
      settle(reset(a, account.id, app.sectorId)),
      settle(reset(b, account.id, app.sectorId)),
      settle(issue(a.issuance)),
      settle(issue(b.issuance)),
    ]);
    // Resets always succeed; an issuance either issues or is told its authority moved under it.
    for (const o of outcomes.slice(0, 2)) expect(o).toEqual({ value: 'reset' });
    for (const o of outcomes.slice(2))
      if ('err' in o) expect((o.err as ServiceError).reason).toBe('AuthorizationArtifactStale');
    expect(await invariants(account.id, app.sectorId)).toEqual({
      liveUnderRetiredSubject: 0,
      liveSubjects: 1,
    });
  }
  const rows = await a.db.sectorSubject.findMany({
    where: { sectorId: app.sectorId, principalId: account.id },
    orderBy: { generation: 'asc' },
  });
  expect(rows.map((r) => r.generation)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
});
