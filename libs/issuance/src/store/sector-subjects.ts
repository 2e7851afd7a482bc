// Store of pairwise sector subjects: find the current one, create it idempotently, rotate it on request.
import type { Db } from '@svc/db';
import { EVENT_TXN_OF_TRANSACTION, identifierChangedOutboxSql } from '@svc/events/shared-sql';
import type { Clock } from '@svc/platform';
import { deriveSectorSubject } from '@svc/token-core';
import type { SectorSubjectsPort, SubjectPrincipal } from '../domain/ports';

/**
 * The current subject of a principal in a sector, created on first use (safe when replicas race: the insert of the
 * first generation skips a duplicate, and the current row is read again, so a reset that ran meanwhile is seen).
 */
async function resolveSectorSubject(
  db: Db,
  secret: string,
  sectorId: string,
  principal: SubjectPrincipal,
): Promise<string> {
  const currentOf = async () =>
    (
      await db.sectorSubject.findFirst({
        where: { sectorId, principalKind: principal.kind, principalId: principal.id, retiredAt: null },
        orderBy: { generation: 'desc' },
        select: { subject: true },
      })
    )?.subject;
  const current = await currentOf();
  if (current) return current;
  const subject = deriveSectorSubject(secret, {
    sectorId,
    principalKind: principal.kind,
    principalId: principal.id,
    generation: 1,
  });
  await db.sectorSubject.createMany({
    data: [{ sectorId, principalKind: principal.kind, principalId: principal.id, subject, generation: 1 }],
    skipDuplicates: true,
  });
  return (await currentOf()) ?? subject;
}

/** Rotates a subject: the old value retires and a new, unrelated one replaces it. */
async function rotateSectorSubject(
  db: Db,
  secret: string,
  sectorId: string,
  principal: SubjectPrincipal,
  /** The caller's clock: when the old subject retired. */
  clock: Clock,
): Promise<string> {
  return db.$transaction(async (tx) => {
    // Rotations of one principal's subject in one sector run one after another on every replica; without the lock
    // two at once would both derive the next generation and one would fail on the unique subject.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`subject:${sectorId}:${principal.kind}:${principal.id}`}))`;
    const current = await tx.sectorSubject.findFirst({
      where: { sectorId, principalKind: principal.kind, principalId: principal.id, retiredAt: null },
      orderBy: { generation: 'desc' },
    });
    const generation = (current?.generation ?? 0) + 1;
    if (current) {
      await tx.sectorSubject.update({ where: { id: current.id }, data: { retiredAt: new Date(clock()) } });
      // Each subscribed application of the sector learns the old subject is no longer issued (identifier-changed),
      // committed with the reset or not at all (the txn: the reset's audit row, libs/audit fills it in).
      await tx.$executeRawUnsafe(
        identifierChangedOutboxSql('$1::uuid', EVENT_TXN_OF_TRANSACTION),
        current.id,
      );
    }
    // An account's reset is counted on the account in the same transaction: sign-ins held on the pages recorded
    // the count when the person authenticated, and a held sign-in whose count moved is dropped (held-authority.ts).
    if (current && principal.kind === 'ACCOUNT')
      await tx.account.updateMany({ where: { id: principal.id }, data: { subjectResets: { increment: 1 } } });
    const subject = deriveSectorSubject(secret, {
      sectorId,
      principalKind: principal.kind,
      principalId: principal.id,
      generation,
    });
    await tx.sectorSubject.create({
      data: { sectorId, principalKind: principal.kind, principalId: principal.id, subject, generation },
    });
    return subject;
  });
}

/** Finds the principal behind a current subject of a sector (never exposes the raw id outside the service). */
async function findBySubject(db: Db, sectorId: string, subject: string) {
  return db.sectorSubject.findFirst({ where: { sectorId, subject, retiredAt: null } });
}

/**
 * The account behind a subject of an application's sector; undefined for an unknown application or subject.
 * `current`: only a subject still in use, never a retired one (an `id_token_hint` from before a reset must not
 * resolve, or the relying party would learn the old-to-new link); otherwise current or retired (revoke-all:
 * sessions keep the subject they were issued under).
 */
async function accountBehindSubject(
  db: Db,
  applicationId: string,
  subject: string,
  opts: { current?: boolean } = {},
): Promise<string | undefined> {
  const app = await db.application.findUnique({ where: { id: applicationId }, select: { sectorId: true } });
  if (!app) return undefined;
  const owner = await db.sectorSubject.findFirst({
    where: {
      subject,
      sectorId: app.sectorId,
      principalKind: 'ACCOUNT',
      ...(opts.current ? { retiredAt: null } : {}),
    },
    select: { principalId: true },
  });
  return owner?.principalId;
}

export function createSectorSubjectsStore(db: Db): SectorSubjectsPort {
  return {
    resolveSectorSubject: (secret, sectorId, principal) =>
      resolveSectorSubject(db, secret, sectorId, principal),
    rotateSectorSubject: (secret, sectorId, principal, clock) =>
      rotateSectorSubject(db, secret, sectorId, principal, clock),
    findBySubject: (sectorId, subject) => findBySubject(db, sectorId, subject),
    accountBehindSubject: (applicationId, subject, opts) =>
      accountBehindSubject(db, applicationId, subject, opts),
  };
}
