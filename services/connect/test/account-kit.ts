// Test support for the account page: HTTP requests carrying the page's session cookie and CSRF token (the virtual
// authenticator whose credentials a test takes out and puts back is testkit's addAuthenticator).
import type { BrowserContext, Page } from 'playwright-core';

/** The account page's cookie and CSRF token as the browser holds them. */
export async function pageSession(
  context: BrowserContext,
  page: Page,
): Promise<{ cookie: string; csrf: string }> {
  const cookie = (await context.cookies()).find((c) => c.name.endsWith('connect_account'));
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content')) ?? '';
  return { cookie: `${cookie?.name}=${cookie?.value}`, csrf };
}

/** A form post as a browser would send it (no redirect following), with the given cookie. */
export function postForm(
  url: string,
  cookie: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}
