// connect's page tests in Chromium: testkit's browser kit with the screenshots under test-artifacts/connect/.
import path from 'node:path';
import { launchChromium as launch, shootBothLocales as shoot } from '@svc/testkit';
import type { Browser, Page } from 'playwright-core';

export { addAuthenticator, type Credential } from '@svc/testkit';

export const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/connect');

export const launchChromium = (): Promise<Browser> => launch(ARTIFACTS);

/** Screenshots the current page in English and Simplified Chinese (re-loading it with ?lang=). */
export const shootBothLocales = (page: Page, name: string): Promise<void> => shoot(page, ARTIFACTS, name);
