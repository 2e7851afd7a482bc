// A rotation committed while its answer was lost to a PostgreSQL failure (the host answered 503 and remembered
// it): the client's retry after the outage, past the retry window, gets the pair it never received. Without that
// memory the same late presentation is reuse and revokes the family.
import { createUnansweredRotationsStore } from '@svc/issuance/stores';
import { postJson, settableClock } from '@svc/testkit';
import { freshSession, type SessionHarness, startSessionHost } from './support';

const WINDOW_MS = 2000;
/** The host's clock, moved by the test. */
const clock = settableClock();
let h: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: String(WINDOW_MS) }, { clock });
});
afterAll(() => h.close());

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });

/** A session whose first rotation committed; the test holds both the presented token and the answer. */
async function rotatedOnce() {
  clock.set(Date.now());
  const { issued } = await freshSession(h.infra);
  const answered = await refresh(issued.refreshToken);
  expect(answered.status).toBe(200);
  // The outage lasted longer than the retry window.
  clock.advance(WINDOW_MS + 60_000);
  return { issued, answered };
}

it('a retry of an unanswered rotation after the window gets the same pair', async () => {
  const { issued, answered } = await rotatedOnce();
  await createUnansweredRotationsStore(h.infra.redis).markRotationUnanswered(issued.sid, 1);
  const retried = await refresh(issued.refreshToken);
  expect(retried.status).toBe(200);
  expect(retried.body.refreshToken).toBe(answered.body.refreshToken);
  expect(retried.body.accessToken).toBe(answered.body.accessToken);
  const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
  expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 2]);
  expect((await refresh(retried.body.refreshToken)).status).toBe(200);
});

it('the same late presentation of an answered rotation is reuse', async () => {
  const { issued } = await rotatedOnce();
  const replayed = await refresh(issued.refreshToken);
  expect([replayed.status, replayed.body.reason]).toEqual([401, 'RefreshTokenFamilyCompromised']);
});
