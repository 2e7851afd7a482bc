// The rotation write's deadline: a consume that PostgreSQL starts after its deadline (a write held on the wire by a
// stall after its client gave up) changes nothing, so the client's retry later still finds its version current.
import { createSessionsStore } from '@svc/issuance/stores';
import { useInfra } from '@svc/testkit';
import { newJti } from '@svc/token-core';
import { freshSession } from './support';

const infra = useInfra();

it('a consume past its deadline changes nothing; the same consume before it wins', async () => {
  const { issued } = await freshSession(infra);
  const before = await infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
  const at = new Date();
  const write = {
    sid: issued.sid,
    presented: before.currentVersion,
    next: before.currentVersion + 1,
    at,
    expiresAt: new Date(at.getTime() + 3_600_000),
    retryUntil: null,
    jti: newJti(),
  };
  // The deadline is on PostgreSQL's clock; a minute back is past whatever the skew between the two clocks.
  expect(
    await createSessionsStore(infra.db).consumeVersions([
      { ...write, deadline: new Date(Date.now() - 60_000) },
    ]),
  ).toEqual([false]);
  const unchanged = await infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
  expect([unchanged.currentVersion, unchanged.currentJti, unchanged.status]).toEqual([
    before.currentVersion,
    before.currentJti,
    'ACTIVE',
  ]);
  expect(
    await createSessionsStore(infra.db).consumeVersions([
      { ...write, deadline: new Date(Date.now() + 60_000) },
    ]),
  ).toEqual([true]);
  const after = await infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
  expect([after.currentVersion, after.currentJti]).toEqual([write.next, write.jti]);
});
