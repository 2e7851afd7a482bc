// The development mailbox of `pnpm start` (maildev, on free ports here): a code a host mails is readable on its page
// and in its JSON list in maildev's shape, the host's log line says where, and the fleet only runs it outside
// production when no SMTP server is configured; it runs each host on the port of its URL when that URL is on this machine.
import { createMailer } from '@svc/signin';
import { captureLogger, freePort, uniqueName } from '@svc/testkit';
import { type DevMailbox, startDevMailbox } from './dev-mailbox';
import { fleetConfigFromEnv } from './fleet-config';

let mailbox: DevMailbox;
beforeAll(async () => {
  const webPort = await freePort();
  let smtpPort = await freePort();
  while (smtpPort === webPort) smtpPort = await freePort();
  mailbox = await startDevMailbox({ webPort, smtpPort });
}, 60_000);
afterAll(() => mailbox?.stop());

interface Listed {
  to: { address: string }[];
  subject: string;
  text: string;
  date: string;
}

test('a mail a host sends is listed at GET /email and the web page is served; the log line names the page', async () => {
  const { logger, lines } = captureLogger('connect', 'info');
  const to = `${uniqueName('ada')}@example.com`;
  const mailer = createMailer(
    mailbox.smtpUrl,
    'Sign-in service <no-reply@localhost>',
    logger,
    mailbox.webUrl,
  );
  await mailer.send({ to, subject: 'Your sign-up code', text: 'Your code is 123456.' });
  mailer.close();
  expect(lines.at(-1)).toMatchObject({ msg: `mail sent; read it at ${mailbox.webUrl}/` });
  expect(JSON.stringify(lines)).not.toContain('123456');

  const list = (await (await fetch(`${mailbox.webUrl}/email`)).json()) as Listed[];
  const mine = list.find((m) => m.to.some((t) => t.address === to));
  expect(mine).toMatchObject({ subject: 'Your sign-up code', text: expect.stringContaining('123456') });
  expect(Number.isNaN(Date.parse(mine!.date))).toBe(false);

  const page = await fetch(`${mailbox.webUrl}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toContain('text/html');
});

test('without a mailbox URL the log line is the plain one', async () => {
  const { logger, lines } = captureLogger('connect', 'info');
  const mailer = createMailer(mailbox.smtpUrl, 'x <x@localhost>', logger);
  await mailer.send({ to: `${uniqueName('b')}@example.com`, subject: 's', text: 't' });
  mailer.close();
  expect(lines.at(-1)).toMatchObject({ msg: 'mail sent' });
});

test('a second mailbox on the same port fails with a sentence instead of hanging', async () => {
  await expect(
    startDevMailbox({ webPort: Number(new URL(mailbox.webUrl).port), smtpPort: await freePort() }),
  ).rejects.toThrow(/development mailbox/);
}, 60_000);

test('pnpm start runs the mailbox only outside production with no SMTP server configured', () => {
  expect(fleetConfigFromEnv({}).mailbox).toEqual({ webPort: 4199, smtpPort: 4198 });
  expect(fleetConfigFromEnv({ DEV_MAILBOX_PORT: '5199' }).mailbox).toEqual({ webPort: 5199, smtpPort: 4198 });
  expect(fleetConfigFromEnv({ NODE_ENV: 'production' }).mailbox).toBeUndefined();
  // Anything but unset, development or test is production (#37): no mailbox for a differently spelt production.
  for (const NODE_ENV of ['Production', 'prod', 'staging']) {
    expect(fleetConfigFromEnv({ NODE_ENV }).mailbox).toBeUndefined();
  }
  expect(fleetConfigFromEnv({ NODE_ENV: 'development' }).mailbox).toEqual({ webPort: 4199, smtpPort: 4198 });
  expect(fleetConfigFromEnv({ SMTP_URL: 'smtp://mail.example:25' }).mailbox).toBeUndefined();
  expect(fleetConfigFromEnv({ SMTP_HOST: 'mail.example' }).mailbox).toBeUndefined();
  expect(() => fleetConfigFromEnv({ DEV_MAILBOX_PORT: 'x' })).toThrow(
    /DEV_MAILBOX_PORT must be a whole number/,
  );
  expect(() => fleetConfigFromEnv({ DEV_MAILBOX_PORT: '4198' })).toThrow(/DEV_MAILBOX_SMTP_PORT must differ/);
});

test('pnpm start runs a host on the port of its URL when that URL is on this machine, outside production', () => {
  expect(fleetConfigFromEnv({}).hostPorts).toEqual({});
  expect(
    fleetConfigFromEnv({
      CONNECT_URL: 'http://localhost:5101',
      SESSION_URL: 'http://127.0.0.1:5103/',
      DEVICE_URL: 'http://[::1]:5104',
      NATIVE_URL: 'https://localhost:5102',
      OIDC_URL: 'http://oidc.example:5105',
    }).hostPorts,
  ).toEqual({ connect: 5101, session: 5103, device: 5104 });
  expect(
    fleetConfigFromEnv({ NODE_ENV: 'production', CONNECT_URL: 'http://localhost:5101' }).hostPorts,
  ).toEqual({});
});
