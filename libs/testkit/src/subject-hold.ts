// Holds an issue attempt between its proven credential and its session insert, with real locks, not a hook.
import type { Db } from '@svc/db';
import { deriveSectorSubject, type PrincipalKind } from '@svc/token-core';

export interface SubjectHold {
  /** Whether another connection waits on the held subject (the issue attempt is inside its window). */
  blocked(): Promise<boolean>;
  /** Rolls the held insert back; the waiting attempt goes on and creates the subject itself. */
  release(): Promise<void>;
}

class Rollback extends Error {}

/**
 * An issue for a principal with no pairwise subject yet in the sector creates it after the credential is proven
 * and before the session is inserted (`resolveSectorSubject`, an insert that skips duplicates). This opens a
 * transaction that inserts that very subject and keeps it uncommitted, so the attempt's insert waits on it in
 * PostgreSQL: the test can then change state (authority, status) while the attempt is provably in that window.
 */
export async function holdSubjectCreation(
  infra: { db: Db; issuance: { subjectSecret: string } },
  sectorId: string,
  principal: { kind: PrincipalKind; id: string },
): Promise<SubjectHold> {
  const subject = deriveSectorSubject(infra.issuance.subjectSecret, {
    sectorId,
    principalKind: principal.kind,
    principalId: principal.id,
    generation: 1,
  });
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let holding!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => {
    holding = resolve;
  });
  const transaction = infra.db
    .$transaction(
      async (tx) => {
        const [row] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        await tx.sectorSubject.create({
          data: {
            sectorId,
            principalKind: principal.kind,
            principalId: principal.id,
            subject,
            generation: 1,
          },
        });
        holding(row!.pid);
        await released;
        throw new Rollback();
      },
      { timeout: 60_000 },
    )
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  const holder = await Promise.race([
    pid,
    transaction.then(() => Promise.reject(new Error('hold ended early'))),
  ]);
  return {
    blocked: async () => {
      const [row] = await infra.db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${holder}::int = ANY(pg_blocking_pids(pid))`;
      return (row?.n ?? 0) > 0;
    },
    release: async () => {
      letGo();
      await transaction;
    },
  };
}
