// A local SMTP server on a free port that captures every mail (sign-up codes, passkey notices) for the tests of
// the hosts that send mail through libs/signin.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitUntil } from './wait';

export interface Mailbox {
  port: number;
  messages: { to: string; text: string }[];
  /**
   * The one-time code of the latest mail to `to`, waiting until one arrived (give each test its own address; after
   * a second code to one address, wait for the new mail by count first).
   */
  codeFor(to: string): Promise<string>;
  close(): Promise<void>;
}

/** The text body of a raw single-part mail, decoded from base64 or quoted-printable (nodemailer's choice). */
export function mailBodyText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = split < 0 ? '' : raw.slice(0, split);
  const body = split < 0 ? raw : raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*([\w-]+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** What libs/signin's notice to an account's owner says when a passkey was added, in either locale. */
const PASSKEY_NOTICE = /passkey was added|添加了新的通行密钥/;

/** The decoded text of every passkey notice mailed to `to` so far. */
export function passkeyNoticesTo(mailbox: Mailbox, to: string): string[] {
  return mailbox.messages
    .filter((m) => m.to === to.toLowerCase())
    .map((m) => mailBodyText(m.text))
    .filter((text) => PASSKEY_NOTICE.test(text));
}

/**
 * Waits for the passkey notice to `to` (a Chromium test's passkey added to that address's account), then holds
 * it to one notice naming the address, the browser and the account page (`accountPage`).
 */
export async function expectOnePasskeyNotice(
  mailbox: Mailbox,
  to: string,
  accountPage: string | RegExp,
): Promise<void> {
  await waitUntil(async () => passkeyNoticesTo(mailbox, to).length > 0);
  const notices = passkeyNoticesTo(mailbox, to);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toContain(to);
  expect(notices[0]).toMatch(/Chrome \(headless\)/);
  expect(notices[0]).toMatch(accountPage);
}

export async function startMailbox(): Promise<Mailbox> {
  const messages: { to: string; text: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase()).join(',');
        messages.push({ to, text: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    async codeFor(to) {
      let code: string | undefined;
      // Bounded like every other wait of the tests (waitUntil's), not by a few seconds a loaded machine can take.
      await waitUntil(async () => {
        const mine = messages.filter((m) => m.to === to.toLowerCase());
        const last = mine[mine.length - 1];
        code = last && /\b(\d{6})\b/.exec(mailBodyText(last.text))?.[1];
        return Boolean(code);
      }).catch(() => {
        throw new Error(`no mail with a code to ${to}`);
      });
      return code as string;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
