// The OIDC host's device grant (RFC 8628, standard wire) approved by a person on this host's page in Chromium:
// openid-client starts it at the OIDC host (a child process, so no host imports another), a newcomer opens the
// verification_uri_complete it printed, signs up on the device page (email code, passkey, terms, consent) and
// approves; openid-client's polling ends with an OIDC token response, which then refreshes at the OIDC host.

import { createOidcClient } from '@svc/provisioning';
import {
  addAuthenticator,
  type ChildHost,
  freePort,
  PAGE_STEP_CEILING_MS,
  provisionApp,
  spawnHost,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { useChromiumPages } from './page-kit';

jest.setTimeout(180_000);

const ui = useChromiumPages({ terms: true });
let oidc: ChildHost;
let oidcUrl: string;

beforeAll(async () => {
  // The issuer names its port, chosen before the host starts; another process may take it in between, so a failed
  // listen starts again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    oidcUrl = `http://localhost:${port}`;
    try {
      oidc = await spawnHost('services/oidc/src/main.ts', {
        ...testEnv({
          PORT: String(port),
          LOG_LEVEL: 'info', // the listening line spawnHost waits for
          OIDC_URL: oidcUrl,
          DEVICE_URL: ui.h.url,
          CONNECT_URL: ui.h.connect.url,
          WEBAUTHN_RP_ID: 'localhost',
          DEVICE_POLL_INTERVAL_SECONDS: '1',
          // One polling state for both wires: the device host's approval marks it under this prefix.
          DEVICE_REDIS_PREFIX: ui.h.redisPrefix,
          RATE_LIMIT_NAMESPACE: uniqueName('oidc-rl'),
          APP_CACHE_TTL_MS: '0',
        }),
      } as Record<string, string>);
      break;
    } catch (err) {
      if (attempt >= 5 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
});

afterAll(async () => {
  await oidc?.kill('SIGTERM');
});

test('openid-client: device authorization at the OIDC host, a newcomer approves on the device page, then refresh', async () => {
  const app = await provisionApp(ui.h.infra, {
    methods: ['OIDC', 'PASSKEY_USERNAMELESS'],
    returnMethods: ['DEVICE_CODE'],
    claims: { email: 'REQUIRED', firstName: 'OPTIONAL' },
    names: { 'en-US': 'Beacon Radio', 'zh-CN': '信标电台' },
  });
  const registered = await createOidcClient(ui.h.infra.provisioning, {
    anchor: app.anchor,
    redirectUris: [],
    authMethod: 'client_secret_basic',
    grants: ['device_code'],
  });
  const secret = 'clientSecret' in registered ? (registered.clientSecret as string) : '';
  const config = await client.discovery(
    new URL(oidcUrl),
    registered.clientId,
    {},
    client.ClientSecretBasic(secret),
    { execute: [client.allowInsecureRequests] },
  );
  const started = await client.initiateDeviceAuthorization(config, { scope: 'openid email offline_access' });
  // One page for both wires: the device host's.
  expect(started.verification_uri).toBe(`${ui.h.url}/device`);
  const polling = client.pollDeviceAuthorizationGrant(config, started);

  const context = await ui.browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  const page = await context.newPage();
  const authenticator = await addAuthenticator(context, page);
  await page.goto(started.verification_uri_complete as string);
  expect(await page.inputValue('#user-code')).toBe(started.user_code);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Sign in to Beacon Radio' }).waitFor();
  const email = `${uniqueName('radio')}@example.test`;
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code').fill(await ui.h.mailbox.codeFor(email));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await page.getByRole('heading', { name: 'Sign in on this device?' }).waitFor();
  expect(await page.textContent('[data-user-code]')).toBe(started.user_code);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Device approved' }).waitFor();
  expect(await authenticator.credentials()).toHaveLength(1);
  await context.close();

  const tokens = await polling;
  const id = tokens.claims();
  expect(id?.aud).toBe(registered.clientId);
  expect(id?.iss).toBe(oidcUrl);
  // A sign-up authenticates by the emailed code (the passkey it made signs the next sign-ins in).
  expect(id?.amr).toEqual(['otp']);
  expect(typeof id?.auth_time).toBe('number');
  expect(decodeJwt(tokens.access_token).aud).toBe(app.anchor);
  const info = await client.fetchUserInfo(config, tokens.access_token, id?.sub as string);
  expect(info.email).toBe(email);
  expect(tokens.refresh_token).toBeDefined();
  const renewed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  expect(renewed.claims()?.sub).toBe(id?.sub);
  expect(renewed.claims()?.auth_time).toBe(id?.auth_time);
  expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
});
