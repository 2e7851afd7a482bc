// Test support for the account page: a virtual authenticator whose credentials a test can take out and put back
// (to add a second passkey, or to present a removed one), and HTTP requests carrying the page's session cookie.
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { Credential } from './browser-kit';

export interface VirtualAuthenticator {
  credentials(): Promise<Credential[]>;
  add(credential: Credential): Promise<void>;
  remove(credentialId: string): Promise<void>;
}

export async function virtualAuthenticator(
  context: BrowserContext,
  page: Page,
): Promise<VirtualAuthenticator> {
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    async credentials() {
      return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as Credential[];
    },
    async add(credential) {
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    },
    async remove(credentialId) {
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId });
    },
  };
}

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
