// Receipt retention: only receipts that no longer count (below the current acceptance epoch) are purged.
import { createSweepStore } from '../src/store/sweep-store';
import { openPrivateDb, type PrivateDb } from './support';

let p: PrivateDb;
beforeAll(async () => {
  p = await openPrivateDb();
});
afterAll(() => p.drop());

it('keeps every receipt at the current epoch, of any revision, and purges old-epoch ones past retention', async () => {
  const body = {};
  await p.db.agreementDocument.create({ data: { revision: 1, acceptanceEpoch: 1, body } });
  await p.db.agreementDocument.create({ data: { revision: 2, acceptanceEpoch: 2, body } });
  await p.db.agreementDocument.create({ data: { revision: 3, acceptanceEpoch: 2, body } });
  const old = new Date('2020-01-01T00:00:00Z');
  const account = () => p.db.account.create({ data: {} }).then((a) => a.id);
  const stale = await p.db.agreementReceipt.create({
    data: { accountId: await account(), revision: 1, acceptanceEpoch: 1, channel: 'T', acceptedAt: old },
  });
  const sameEpochOlderRevision = await p.db.agreementReceipt.create({
    data: { accountId: await account(), revision: 2, acceptanceEpoch: 2, channel: 'T', acceptedAt: old },
  });
  const recentStale = await p.db.agreementReceipt.create({
    data: { accountId: await account(), revision: 1, acceptanceEpoch: 1, channel: 'T' },
  });
  const removed = await createSweepStore(p.db).purgeReceiptsBatch(new Date('2024-01-01T00:00:00Z'), 100);
  expect(removed).toBe(1);
  const left = (await p.db.agreementReceipt.findMany()).map((r) => r.id).sort();
  expect(left).toEqual([sameEpochOlderRevision.id, recentStale.id].sort());
  expect(left).not.toContain(stale.id);
});
