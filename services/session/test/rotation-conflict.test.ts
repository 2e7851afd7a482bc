// The session host's unrecoverable rotation conflict: a rotation that read its version as current, lost the
// conditional write to a concurrent rotation of the same version, and cannot be answered by the retry allowance,
// gets an empty 401 and changes nothing. The timing is driven, not slept: a row lock held by the test parks both
// rotations at their write, and the host's clock (stopped by the test) moves past the allowance before they go on.
// The same clock also lets a session outlive its expiry without any write to the database.
import { postJson, settableClock, waitUntil } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { freshSession, type SessionHarness, startSessionHost } from './support';

const WINDOW_MS = 2000;
/** The host's clock: stopped at the start of each test, moved by it. */
const clock = settableClock();
let h: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost(
    // Parked rotations wait on the test's row lock for as long as the test takes on a loaded machine: the
    // statement bound (2 s by default, then 503) must not end them first.
    { REFRESH_RETRY_WINDOW_MS: String(WINDOW_MS), DB_STATEMENT_TIMEOUT_MS: '60000' },
    { clock },
  );
});
afterAll(() => h.close());
beforeEach(() => {
  clock.set(Date.now());
});

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });

/** Backends of this database parked at the rotation's conditional write behind one of `blockers`. */
async function parkedWrites(blockers: number[]): Promise<number[]> {
  const rows = await h.infra.db.$queryRawUnsafe<{ pid: number }[]>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND query ILIKE '%update%sessions%'
        AND pg_blocking_pids(pid) && $1::int[]`,
    blockers,
  );
  return rows.map((r) => r.pid);
}

/**
 * Presents `token` twice while the test holds the session row: both rotations read the version as current and
 * park at their write, one behind the other. `whileParked` runs then; releasing the row lets the first write win
 * and the second lose.
 */
async function twoParkedRotations(sid: string, token: string, whileParked: () => void) {
  let calls: Promise<Awaited<ReturnType<typeof refresh>>>[] = [];
  await h.infra.db.$transaction(
    async (tx) => {
      const [me] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      const pid = me!.pid;
      await tx.$queryRaw`SELECT id FROM sessions WHERE id = ${sid} FOR UPDATE`;
      const first = refresh(token);
      let firstPid = 0;
      await waitUntil(async () => {
        firstPid = (await parkedWrites([pid]))[0] ?? 0;
        return firstPid !== 0;
      });
      const second = refresh(token);
      await waitUntil(async () => (await parkedWrites([pid, firstPid])).some((p) => p !== firstPid));
      calls = [first, second];
      whileParked();
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
  return Promise.all(calls);
}

describe('POST /refresh: a lost rotation write', () => {
  it('inside the allowance, the loser gets the pair the winner got (the allowance answers)', async () => {
    const { issued } = await freshSession(h.infra);
    // The clock stands still: however long the parking takes, the loser looks again at the winner's instant.
    const [a, b] = await twoParkedRotations(issued.sid, issued.refreshToken, () => undefined);
    expect([a!.status, b!.status]).toEqual([200, 200]);
    expect(b!.body.refreshToken).toBe(a!.body.refreshToken);
    expect(b!.body.accessToken).toBe(a!.body.accessToken);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 2]);
  });

  it('past the allowance, the loser gets an empty 401 and the winner keeps the session', async () => {
    const { issued } = await freshSession(h.infra);
    // Both rotations have read and stamped their instant; the loser looks again only after the window.
    const results = await twoParkedRotations(issued.sid, issued.refreshToken, () => {
      clock.advance(WINDOW_MS + 1);
    });
    const won = results.find((r) => r.status === 200)!;
    const lost = results.find((r) => r !== won)!;
    expect(won).toBeDefined();
    expect(lost.status).toBe(401);
    expect(lost.text).toBe('');
    expect(lost.headers.get('content-type')).toBeNull();
    // Nothing changed beyond the winner's rotation: the session is active at the winner's version.
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 2]);
    expect(session.currentJti).toBe(decodeJwt(won.body.refreshToken).jti);
    expect((await refresh(won.body.refreshToken)).status).toBe(200);
  });

  it('a late replay of the same version, not concurrent with any rotation, is still reuse', async () => {
    const { issued } = await freshSession(h.infra);
    const first = await refresh(issued.refreshToken);
    expect(first.status).toBe(200);
    clock.advance(WINDOW_MS + 1);
    const replay = await refresh(issued.refreshToken);
    expect([replay.status, replay.body.reason]).toEqual([401, 'RefreshTokenFamilyCompromised']);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect(session.status).toBe('REVOKED');
  });
});

describe('POST /refresh and the passing of time', () => {
  it('a session past its expiry is RefreshTokenExpired, and stays as it is', async () => {
    const { issued } = await freshSession(h.infra);
    // Thirty-one days on (the refresh lifetime is thirty days): the token's own exp has not passed for the
    // verifier (real time), but the session has by the host's clock.
    clock.set(Date.now() + 31 * 86_400_000);
    const res = await refresh(issued.refreshToken);
    expect([res.status, res.body.reason]).toEqual([401, 'RefreshTokenExpired']);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 1]);
  });
});
