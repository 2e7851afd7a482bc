// Chromium for the OIDC pages: testkit's launcher and CDP virtual authenticator, pages whose authenticator keeps
// the person's passkey between pages (its signature counter moves on), and screenshots under test-artifacts/oidc.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { addAuthenticator, type Credential } from '@svc/testkit';
import type { BrowserContext, Page } from 'playwright-core';

export { type Credential, launchChromium } from '@svc/testkit';

export const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/oidc');

/** The person's passkeys as their authenticator holds them, carried from page to page. */
export class Keychain {
  credentials: Credential[] = [];

  /** A new page in `context` whose virtual authenticator holds the passkeys; close() carries them back. */
  async page(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    const authenticator = await addAuthenticator(context, page, this.credentials);
    const close = page.close.bind(page);
    page.close = async (o) => {
      this.credentials = await authenticator.credentials();
      return close(o);
    };
    return page;
  }
}

/** Screenshots the current page in English and Simplified Chinese (reloading it with ?lang=), back in English. */
export async function shootBothLocales(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const url = new URL(page.url());
  url.searchParams.set('lang', 'en-US');
  await page.goto(url.toString());
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.en-US.png`), fullPage: true });
  url.searchParams.set('lang', 'zh-CN');
  await page.goto(url.toString());
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.zh-CN.png`), fullPage: true });
  url.searchParams.set('lang', 'en-US');
  await page.goto(url.toString());
}
