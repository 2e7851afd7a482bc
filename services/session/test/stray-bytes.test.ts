// A valid /refresh followed on the same connection by bytes that are no request (`1\r\n\r\n`): the client gets the
// rotation's answer and then the connection closes. Before, Node answered the stray bytes 400 and cut the
// connection while the handler rotated the session anyway, so the client never saw its new pair, and presenting
// the token it still held later (past the retry window) revoked the whole family. The same holds when what follows
// is a request whose headers parse but whose chunked body is broken (#37): the refresh is answered first.
import { brokenChunkedBytes, exchangeRaw, requestBytes, settableClock } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { freshSession, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
const clock = settableClock();
beforeAll(async () => {
  h = await startSessionHost({ SESSION_CACHE_MS: '0' }, { clock });
});
afterAll(() => h.close());

test('a refresh followed by stray bytes is answered with its pair, which then works', async () => {
  clock.set(Date.now());
  const { issued } = await freshSession(h.infra);
  const body = JSON.stringify({ refreshToken: issued.refreshToken });
  const request = requestBytes(`${h.url}/refresh`, 'POST', { 'Content-Type': 'application/json' }, body);
  const { text, statuses } = await exchangeRaw(h.url, `${request}1\r\n\r\n`);
  expect(statuses).toEqual([200]);
  const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { refreshToken: string };
  expect(decodeJwt(answer.refreshToken).rotationVersion).toBe(2);
  // Long past the retry window: the pair the client was given is the live one.
  clock.advance(60_000);
  const next = await fetch(`${h.url}/refresh`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refreshToken: answer.refreshToken }),
  });
  expect(next.status).toBe(200);
});

test('a refresh followed by a request with a broken chunked body is answered with its pair, which then works', async () => {
  clock.set(Date.now());
  const { issued } = await freshSession(h.infra);
  const body = JSON.stringify({ refreshToken: issued.refreshToken });
  const request = requestBytes(`${h.url}/refresh`, 'POST', { 'Content-Type': 'application/json' }, body);
  const { text, statuses } = await exchangeRaw(h.url, `${request}${brokenChunkedBytes(`${h.url}/refresh`)}`);
  // Before: only a 400, while the rotation happened.
  expect(statuses).toEqual([200]);
  expect(text).toMatch(/\r\nconnection: close\r\n/i);
  const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { refreshToken: string };
  expect(decodeJwt(answer.refreshToken).rotationVersion).toBe(2);
  clock.advance(60_000);
  const next = await fetch(`${h.url}/refresh`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refreshToken: answer.refreshToken }),
  });
  expect(next.status).toBe(200);
});
