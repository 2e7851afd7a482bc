// Session refresh chains for a failover that can lose answered rotations (an asynchronous replica promoted): every
// token each chain was given is kept by session and version, a 401 sends the chain's client to sign in again (a new
// session), and the load can be held so a test knows exactly which rotations the replica already has. After the
// failover, `rollback` compares what the clients were answered with what the new primary holds.
import type { Db } from '@svc/db';
import { postJson, waitUntil } from '@svc/testkit';
import { decodeJwt } from 'jose';

interface Answered {
  worker: number;
  presented: string;
  next: string;
  startedAt: number;
}

interface Refused {
  worker: number;
  presented: string;
  status: number;
  reason?: string;
  at: number;
}

/** What the new primary lost of one session: the versions answered past the one it holds, and that version's token. */
export interface LostSession {
  sid: string;
  /** Rotations the clients were answered that the new primary does not have. */
  lost: number;
  /** The newest token the client was given for this session (what it presents next). */
  newest: string;
  /** The token of the version the new primary holds: its rotation was answered, then lost. */
  current: string;
}

const claimsOf = (token: string) => {
  const c = decodeJwt(token);
  return { sid: c.sid as string, version: c.rotationVersion as number, jti: c.jti as string };
};

/** `first.length` chains, one per load worker, each starting from its first refresh token. */
export function losableChains(first: string[], signIn: () => Promise<string>) {
  const held = [...first];
  const versions = new Map<string, Map<number, string>>();
  const keep = (token: string) => {
    const { sid, version } = claimsOf(token);
    const bySession = versions.get(sid) ?? new Map<number, string>();
    bySession.set(version, token);
    versions.set(sid, bySession);
  };
  for (const t of first) keep(t);
  const answered: Answered[] = [];
  const refused: Refused[] = [];
  let gate: Promise<void> = Promise.resolve();
  let inFlight = 0;

  return {
    held,
    answered,
    /** Every 401 a chain got (after which its client signed in again). */
    refused,
    /** One /refresh of chain `worker` at `url` (after the hold, if any, is released). */
    async refresh(worker: number, url: string) {
      await gate;
      inFlight++;
      try {
        const presented = held[worker]!;
        const startedAt = Date.now();
        const res = await postJson(`${url}/refresh`, { refreshToken: presented });
        if (res.status === 200) {
          const next = res.body.refreshToken as string;
          answered.push({ worker, presented, next, startedAt });
          keep(next);
          held[worker] = next;
        } else if (res.status === 401) {
          refused.push({ worker, presented, status: res.status, reason: res.body?.reason, at: Date.now() });
          // The client's session is gone: it signs in again (retried while the database comes back).
          let token: string | undefined;
          await waitUntil(async () => {
            token = await signIn();
            return true;
          }, 30_000);
          keep(token!);
          held[worker] = token!;
        }
        return {
          status: res.status,
          reason: res.body?.reason as string | undefined,
          retryAfter: res.headers.get('retry-after'),
        };
      } finally {
        inFlight--;
      }
    },
    /** Holds every chain before its next request and waits for those in flight; resolves to the release. */
    async hold(): Promise<() => void> {
      let release = () => {};
      gate = new Promise<void>((r) => {
        release = r;
      });
      await waitUntil(async () => inFlight === 0, 30_000, 5);
      return release;
    },
    /** The 200s of `sid` whose request started at or after `t`. */
    answeredSince(t: number, sid: string): number {
      return answered.filter((a) => a.startedAt >= t && claimsOf(a.presented).sid === sid).length;
    },
    /**
     * Every session the chains rotated, compared with the database now: a session whose newest answered version is
     * past the one it holds lost those rotations. Throws if the database holds a version or jti no client was given
     * (the new primary's state must be one the old primary answered).
     */
    async rollback(db: Db): Promise<LostSession[]> {
      const lostSessions: LostSession[] = [];
      for (const [sid, bySession] of versions) {
        const newestVersion = Math.max(...bySession.keys());
        const row = await db.session.findUniqueOrThrow({ where: { id: sid } });
        const current = bySession.get(row.currentVersion);
        if (!current || claimsOf(current).jti !== row.currentJti)
          throw new Error(`session ${sid} holds version ${row.currentVersion}, which no client was given`);
        if (newestVersion === row.currentVersion) continue;
        lostSessions.push({
          sid,
          lost: newestVersion - row.currentVersion,
          newest: bySession.get(newestVersion)!,
          current,
        });
      }
      return lostSessions;
    },
  };
}

export type LosableChains = ReturnType<typeof losableChains>;
