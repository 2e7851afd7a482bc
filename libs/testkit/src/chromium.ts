// Headless Chromium (Debian's /usr/bin/chromium through playwright-core, loaded only when a test launches it) with
// a CDP WebAuthn virtual authenticator, and screenshots of a page in both locales, for every host's page tests.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * The wait a page step (a click and its navigation, a heading appearing) may take before the test fails: a ceiling,
 * never a claim about speed. At load 15-20 on 2 cores (the suite's two workers beside other work) a code mail's
 * send-and-redirect took over 15 s, the old per-file ceilings (10-15 s) failed sign-ins that were only slow.
 */
export const PAGE_STEP_CEILING_MS = 60_000;

export async function launchChromium(artifacts?: string): Promise<Browser> {
  if (artifacts) mkdirSync(artifacts, { recursive: true });
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface Credential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** Adds a virtual platform authenticator (resident keys, user verification) to a page; returns its helpers. */
export async function addAuthenticator(context: BrowserContext, page: Page, credentials: Credential[] = []) {
  const cdp = await context.newCDPSession(page);
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
  for (const credential of credentials)
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
  return {
    async credentials(): Promise<Credential[]> {
      const res = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return res.credentials as Credential[];
    },
    /** Puts a credential (back) into the authenticator, e.g. to present a removed passkey. */
    async add(credential: Credential): Promise<void> {
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    },
    async remove(credentialId: string): Promise<void> {
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId });
    },
  };
}

/** What `addAuthenticator` returns: the authenticator's credentials, and adding or removing one. */
export type VirtualAuthenticator = Awaited<ReturnType<typeof addAuthenticator>>;

/** Screenshots the current page into `dir` in English and Simplified Chinese (re-loading it with ?lang=). */
export async function shootBothLocales(page: Page, dir: string, name: string): Promise<void> {
  const url = new URL(page.url());
  await page.screenshot({ path: path.join(dir, `${name}.en-US.png`), fullPage: true });
  url.searchParams.set('lang', 'zh-CN');
  await page.goto(url.toString());
  await page.screenshot({ path: path.join(dir, `${name}.zh-CN.png`), fullPage: true });
  url.searchParams.set('lang', 'en-US');
  await page.goto(url.toString());
}

/**
 * On a sign-in page in English (any host's: the steps are libs/signin's): proves `email` by the code `codeFor`
 * reads from the mailbox, then creates a passkey on the page's virtual authenticator (a sign-up, or a passkey added
 * to the address's account). Resolves once the passkey button is clicked; the caller waits for what follows.
 */
export async function signUpByEmailCode(
  page: Page,
  email: string,
  codeFor: (email: string) => Promise<string>,
): Promise<void> {
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code').fill(await codeFor(email));
  await page.getByRole('button', { name: 'Continue' }).click();
  // "Create a passkey" for a new account; "Create a new passkey" when the address already has one.
  await page.getByRole('button', { name: /^Create a (new )?passkey$/ }).click();
}
