// Holds a request between two of its statements with real PostgreSQL locks, so tests need no hook in the code.
import type { Db } from '@svc/db';
import { deriveSectorSubject, type PrincipalKind } from '@svc/token-core';
import { waitUntil } from './wait';

export interface TransactionHold {
  /** Whether another connection waits on the held transaction. */
  blocked(): Promise<boolean>;
  /** The backends waiting on the held transaction. */
  waiting(): Promise<number[]>;
  /** Rolls the held transaction back; whoever waited on it goes on. */
  release(): Promise<void>;
}

/** Alias kept for the issue-path tests. */
export type SubjectHold = TransactionHold;

class Rollback extends Error {}

/**
 * Opens a transaction, runs `take` in it (an insert, a `LOCK TABLE`...) and keeps it open, uncommitted, until
 * `release`: a statement of the code under test that conflicts with it waits in PostgreSQL, provably, while the
 * test changes state around it.
 */
export async function holdInTransaction(
  db: Db,
  take: (tx: Pick<Db, '$executeRawUnsafe' | 'sectorSubject'>) => Promise<unknown>,
): Promise<TransactionHold> {
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let holding!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => {
    holding = resolve;
  });
  const transaction = db
    .$transaction(
      async (tx) => {
        const [row] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        await take(tx);
        holding(row!.pid);
        await released;
        throw new Rollback();
      },
      { timeout: 120_000 },
    )
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  const holder = await Promise.race([
    pid,
    transaction.then(() => Promise.reject(new Error('hold ended early'))),
  ]);
  const waiting = async () =>
    (
      await db.$queryRaw<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity WHERE ${holder}::int = ANY(pg_blocking_pids(pid))`
    ).map((r) => r.pid);
  return {
    waiting,
    blocked: async () => (await waiting()).length > 0,
    release: async () => {
      letGo();
      await transaction;
    },
  };
}

/**
 * An issue for a principal with no pairwise subject yet in the sector creates it after the credential is proven
 * and before the session is inserted (`resolveSectorSubject`, an insert that skips duplicates). This inserts that
 * very subject and keeps it uncommitted, so the attempt's insert waits on it: the test can then change state
 * (authority, status) while the attempt is provably in that window.
 */
export function holdSubjectCreation(
  infra: { db: Db; issuance: { subjectSecret: string } },
  sectorId: string,
  principal: { kind: PrincipalKind; id: string },
): Promise<TransactionHold> {
  const subject = deriveSectorSubject(infra.issuance.subjectSecret, {
    sectorId,
    principalKind: principal.kind,
    principalId: principal.id,
    generation: 1,
  });
  return holdInTransaction(infra.db, (tx) =>
    tx.sectorSubject.create({
      data: { sectorId, principalKind: principal.kind, principalId: principal.id, subject, generation: 1 },
    }),
  );
}

/**
 * Starts `attempt` while `holdSubjectCreation` holds it between its proof and its session insert, runs `meanwhile`
 * once the attempt provably waits there (nothing, to show the hold itself refuses nothing), then lets it go on;
 * answers what the attempt answered.
 */
export async function whileSubjectHeld<T>(
  infra: { db: Db; issuance: { subjectSecret: string } },
  sectorId: string,
  principal: { kind: PrincipalKind; id: string },
  attempt: () => Promise<T>,
  meanwhile: () => Promise<unknown> = async () => undefined,
): Promise<T> {
  const hold = await holdSubjectCreation(infra, sectorId, principal);
  const answer = attempt();
  try {
    await waitUntil(hold.blocked);
    await meanwhile();
  } finally {
    await hold.release();
  }
  return answer;
}
