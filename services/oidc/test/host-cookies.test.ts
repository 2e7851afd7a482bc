// Over HTTPS the OIDC host's browser cookies carry the `__Host-` prefix (Secure, Path=/, no Domain), so a sibling
// subdomain or a plain-HTTP hop cannot plant its own: the logout confirmation's CSRF cookie and the language cookie.
import { uniqueName } from '@svc/testkit';
import { authorizeRequestUrl, provisionRelyingParty, startOidcPages } from './pages-kit';

let h: Awaited<ReturnType<typeof startOidcPages>>;

beforeAll(async () => {
  // An HTTPS issuer served on loopback: the host names its cookies after OIDC_URL, not the socket.
  h = await startOidcPages({ issuer: 'https://oidc.example.test' });
});
afterAll(async () => {
  await h?.close();
});

/** The Set-Cookie of `name` in an answer; it must be a `__Host-` cookie. */
function hostCookie(res: Response, name: string): string {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`__Host-${name}=`)) ?? '';
  expect(cookie).toMatch(/; Path=\/(;|$)/);
  expect(cookie).toMatch(/; Secure/);
  expect(cookie).not.toMatch(/Domain=/i);
  expect(res.headers.getSetCookie().some((c) => c.startsWith(`${name}=`))).toBe(false);
  return cookie;
}

test('the logout confirmation’s CSRF cookie is __Host-oidc_logout_csrf, HttpOnly and SameSite=Strict', async () => {
  const res = await fetch(`${h.address}/end-session`);
  expect(res.status).toBe(200);
  const cookie = hostCookie(res, 'oidc_logout_csrf');
  expect(cookie).toMatch(/; HttpOnly/);
  expect(cookie).toMatch(/; SameSite=Strict/);
});

test('the language cookie the interaction page remembers ?lang= in is __Host- too', async () => {
  const rp = await provisionRelyingParty(h, { redirectUris: [`https://${uniqueName('rp')}.example/cb`] });
  const parked = await fetch(authorizeRequestUrl(h.address, rp), { redirect: 'manual' });
  expect(parked.status).toBe(303);
  const page = await fetch(`${h.address}${parked.headers.get('location')}?lang=zh-CN`);
  expect(page.status).toBe(200);
  expect(hostCookie(page, 'oidc_lang')).toMatch(/^__Host-oidc_lang=zh-CN;/);
});
