// The development mailbox of `pnpm start` (maildev, on free ports here): a code a host mails is readable on its page
// and in its JSON list in maildev's shape, the host's log line says where, and the fleet only runs it outside
// production when no SMTP server is configured; it runs each host on the port of its URL when that URL is on this machine.
import http from 'node:http';
import net from 'node:net';
import { createMailer } from '@svc/signin';
import { captureLogger, freePort, uniqueName, waitUntil } from '@svc/testkit';
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

/** One request to the mailbox's port with exactly these headers (Host included: fetch would set its own). */
function send(method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>(
    (resolve, reject) => {
      const req = http.request(
        // Without a Host in `headers`, none at all (node would add 127.0.0.1:<port>).
        {
          host: '127.0.0.1',
          port: Number(new URL(mailbox.webUrl).port),
          method,
          path,
          headers,
          setHost: 'host' in headers,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

const corsHeaders = (h: http.IncomingHttpHeaders) =>
  Object.keys(h).filter((k) => k.startsWith('access-control-'));

describe('the mailbox answers its own pages on loopback names only (#37)', () => {
  const port = () => new URL(mailbox.webUrl).port;
  async function mailTo(to: string) {
    const mailer = createMailer(mailbox.smtpUrl, 'x <x@localhost>', captureLogger('connect', 'info').logger);
    await mailer.send({ to, subject: 'Your sign-up code', text: 'Your code is 654321.' });
    mailer.close();
    await waitUntil(() => listed(to));
  }
  const listed = async (to: string) => {
    const res = await send('GET', '/email', { host: `localhost:${port()}` });
    return (JSON.parse(res.text) as Listed[]).some((m) => m.to.some((t) => t.address === to));
  };

  test('its own names and origin read the list, with no CORS header for anyone', async () => {
    const to = `${uniqueName('own')}@example.com`;
    await mailTo(to);
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`]) {
      const res = await send('GET', '/email', { host, origin: `http://${host}` });
      expect([host, res.status, corsHeaders(res.headers)]).toEqual([host, 200, []]);
      expect(res.text).toContain(to);
    }
  });

  test('another site (another origin, or its name rebound to 127.0.0.1) reads nothing and deletes nothing', async () => {
    const to = `${uniqueName('kept')}@example.com`;
    await mailTo(to);
    const attempts: [string, string, Record<string, string>][] = [
      ['GET', '/email', { host: `localhost:${port()}`, origin: 'https://evil.example' }],
      ['GET', '/email', { host: `localhost:${port()}`, origin: `http://localhost:${Number(port()) + 1}` }],
      ['GET', '/email', { host: `evil.example:${port()}` }],
      ['GET', '/email', { host: 'localhost' }],
      ['GET', '/', { host: `localhost.evil.example:${port()}` }],
      [
        'OPTIONS',
        '/email/all',
        {
          host: `localhost:${port()}`,
          origin: 'https://evil.example',
          'access-control-request-method': 'DELETE',
        },
      ],
      ['DELETE', '/email/all', { host: `localhost:${port()}`, origin: 'https://evil.example' }],
      ['DELETE', '/email/all', { host: `evil.example:${port()}` }],
    ];
    for (const [method, path, headers] of attempts) {
      const res = await send(method, path, headers);
      expect([method, path, headers, res.status, corsHeaders(res.headers)]).toEqual([
        method,
        path,
        headers,
        403,
        [],
      ]);
      expect(res.text).not.toContain('654321');
    }
    // No Host at all: node's own HTTP/1.1 refusal, before the guard.
    expect((await send('GET', '/email', {})).status).toBe(400);
    expect(await listed(to)).toBe(true);
  });

  test("its page's WebSocket opens on its own name and origin, and is refused to another site", async () => {
    const upgrade = (host: string, origin: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port()), '127.0.0.1', () => {
          socket.write(
            [
              'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1',
              `Host: ${host}`,
              `Origin: ${origin}`,
              'Upgrade: websocket',
              'Connection: Upgrade',
              'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
              'Sec-WebSocket-Version: 13',
              '',
              '',
            ].join('\r\n'),
          );
        });
        socket.once('data', (chunk) => {
          resolve(chunk.toString('latin1').split('\r\n')[0]!);
          socket.destroy();
        });
        socket.on('error', reject);
      });
    expect(await upgrade(`localhost:${port()}`, `http://localhost:${port()}`)).toBe(
      'HTTP/1.1 101 Switching Protocols',
    );
    expect(await upgrade(`evil.example:${port()}`, `http://evil.example:${port()}`)).toBe(
      'HTTP/1.1 403 Forbidden',
    );
    expect(await upgrade(`localhost:${port()}`, 'https://evil.example')).toBe('HTTP/1.1 403 Forbidden');
  });
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
