// A valid /authorize followed on the same connection by bytes that are no request (`1\r\n\r\n`): the client gets
// the redirect to the request it parked, then the connection closes. Before, Node answered the stray bytes 400 and
// cut the connection while the handler parked the request anyway (a parked request, and an /authorize count,
// for a browser told its request failed).
import { exchangeRaw, requestBytes, uniqueName } from '@svc/testkit';
import { authorizeRequestUrl, provisionRelyingParty, useOidcPages } from './pages-kit';

const host = useOidcPages();

test('an /authorize followed by stray bytes is answered with its redirect, which leads to the page', async () => {
  const rp = await provisionRelyingParty(host, { redirectUris: [`https://${uniqueName('rp')}.example/cb`] });
  const url = authorizeRequestUrl(host.address, rp, { scope: 'openid email', state: 'st-1' });
  const request = requestBytes(url, 'GET', { 'Accept-Language': 'en-US' });
  const { text, statuses } = await exchangeRaw(host.address, `${request}1\r\n\r\n`);
  expect(statuses).toEqual([303]);
  const location = /\r\nlocation: (\S+)\r\n/i.exec(text)?.[1] ?? '';
  expect(location).toMatch(/^\/interaction\/[A-Za-z0-9_-]{43}/);
  const page = await fetch(`${host.address}${location}`, { headers: { 'accept-language': 'en-US' } });
  expect(page.status).toBe(200);
});
