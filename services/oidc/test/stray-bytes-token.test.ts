// /token requests (the single-use code exchange, then a refresh) each followed on the same connection by a request
// whose headers parse but whose chunked body is broken (#37): each is answered with what it issued, then the
// connection closes. Before, each got only a 400 while the exchange or rotation happened: the code was spent (its
// retry counted as a replay and revoked the session) and the refresh's new pair lost.
import { brokenChunkedBytes, exchangeRaw, requestBytes } from '@svc/testkit';
import { codeFor, grantFor, provisionRp, refresh, useOidcHost } from './token-kit';

const h = useOidcHost();
const FORM = 'application/x-www-form-urlencoded';

async function tokenThenBroken(fields: Record<string, string>) {
  const url = `${h.url}/token`;
  const request = requestBytes(url, 'POST', { 'Content-Type': FORM }, new URLSearchParams(fields).toString());
  const { text, statuses } = await exchangeRaw(h.url, `${request}${brokenChunkedBytes(url, 'POST', FORM)}`);
  expect(statuses).toEqual([200]);
  expect(text).toMatch(/\r\nconnection: close\r\n/i);
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as {
    refresh_token: string;
    access_token: string;
  };
}

test('a code exchange, then a refresh, each followed by a broken chunked request: both answered, the pair works', async () => {
  const rp = await provisionRp(h, { authMethod: 'client_secret_post' });
  const secret = { client_id: rp.client.clientId, client_secret: rp.clientSecret ?? '' };
  const code = await codeFor(h, grantFor(rp));
  const exchanged = await tokenThenBroken({
    grant_type: 'authorization_code',
    code,
    redirect_uri: rp.redirectUri,
    ...secret,
  });
  expect(exchanged.access_token).toBeTruthy();
  const rotated = await tokenThenBroken({
    grant_type: 'refresh_token',
    refresh_token: exchanged.refresh_token,
    ...secret,
  });
  // The pair the client was given is the live one.
  const next = await refresh(h, rp, rotated.refresh_token);
  expect(next.status).toBe(200);
});
