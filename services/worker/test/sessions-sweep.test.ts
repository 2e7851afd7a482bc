// The session sweep over sweep_after: expires what lapsed, follows expiries that rotations slid on, and deletes
// sessions that are no longer active once retention has passed; nothing live is touched.
import { provisionApp, useInfra } from '@svc/testkit';
import { createSweepStore } from '../src/store/sweep-store';
import { openPrivateDb, type PrivateDb, sessionRow } from './support';

const DAY = 86_400_000;
const RETENTION_SECONDS = 7 * 86_400;
let p: PrivateDb;
beforeAll(async () => {
  p = await openPrivateDb();
});
const infra = useInfra(() => ({ over: p.db }));
afterAll(() => p.drop());

it('expires, defers and purges each session by what it is now, and leaves live ones alone', async () => {
  const app = await provisionApp(infra);
  const account = await p.db.account.create({ data: {} });
  const now = new Date();
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
  const session = async (
    status: 'ACTIVE' | 'REVOKED' | 'EXPIRED',
    expiresAt: Date,
    sweepAfter: Date,
  ): Promise<string> => {
    const row = sessionRow({
      applicationId: app.applicationId,
      accountId: account.id,
      status,
      expiresAt,
      sweepAfter,
    });
    await p.db.session.create({ data: row });
    return row.id;
  };
  const lapsed = await session('ACTIVE', at(-DAY), at(-DAY));
  // Rotations slid the expiry on past the sweep mark: looked at, not expired, looked at again at the new expiry.
  const slid = await session('ACTIVE', at(DAY), at(-DAY));
  const revokedLive = await session('REVOKED', at(DAY), at(-DAY));
  const revokedRecent = await session('REVOKED', at(-DAY), at(-DAY));
  const revokedOld = await session('REVOKED', at(-10 * DAY), at(-10 * DAY));
  const expiredOld = await session('EXPIRED', at(-10 * DAY), at(-3 * DAY));
  const notDue = await session('ACTIVE', at(DAY), at(DAY));

  const swept = await createSweepStore(p.db).sweepSessionsBatch(now, RETENTION_SECONDS, 100);
  expect(swept).toEqual({ looked: 6, expired: [lapsed], purged: 2 });

  const rows = await p.db.session.findMany({
    select: { id: true, status: true, expiresAt: true, sweepAfter: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.has(revokedOld)).toBe(false);
  expect(byId.has(expiredOld)).toBe(false);
  const retained = (expiresAt: Date) => new Date(expiresAt.getTime() + RETENTION_SECONDS * 1000);
  expect(byId.get(lapsed)).toMatchObject({ status: 'EXPIRED', sweepAfter: retained(at(-DAY)) });
  expect(byId.get(slid)).toMatchObject({ status: 'ACTIVE', sweepAfter: at(DAY) });
  expect(byId.get(revokedLive)).toMatchObject({ status: 'REVOKED', sweepAfter: at(DAY) });
  expect(byId.get(revokedRecent)).toMatchObject({ status: 'REVOKED', sweepAfter: retained(at(-DAY)) });
  expect(byId.get(notDue)).toMatchObject({ status: 'ACTIVE', sweepAfter: at(DAY) });

  // Nothing is due any more until an expiry or a retention period comes round.
  expect(await createSweepStore(p.db).sweepSessionsBatch(now, RETENTION_SECONDS, 100)).toEqual({
    looked: 0,
    expired: [],
    purged: 0,
  });
});
