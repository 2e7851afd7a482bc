// Reading the mails the in-process SMTP server captured: headers, the decoded subject and text body
// (nodemailer sends non-ASCII text as quoted-printable or base64 and the subject as RFC 2047 words).
import { type Mailbox, waitUntil } from '@svc/testkit';

export interface ReadMail {
  to: string;
  subject: string;
  text: string;
}

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([BQ])\?([^?]*)\?=\s*/gi, (_, enc: string, data: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data
            .replace(/_/g, ' ')
            .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export function readMail(m: { to: string; text: string }): ReadMail {
  const split = m.text.indexOf('\r\n\r\n');
  const head = m.text.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const raw = m.text.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(raw.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(raw)
        : raw;
  return { to: m.to, subject: decodeWords(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

/** Waits for a mail to `to` whose subject matches, and returns it decoded. */
export async function waitForMail(mailbox: Mailbox, to: string, subject: RegExp): Promise<ReadMail> {
  let found: ReadMail | undefined;
  await waitUntil(async () => {
    found = mailbox.messages
      .filter((m) => m.to === to.toLowerCase())
      .map(readMail)
      .find((m) => subject.test(m.subject));
    return Boolean(found);
  });
  return found as ReadMail;
}

/** Every decoded mail to `to` whose subject matches. */
export function mailsTo(mailbox: Mailbox, to: string, subject: RegExp): ReadMail[] {
  return mailbox.messages
    .filter((m) => m.to === to.toLowerCase())
    .map(readMail)
    .filter((m) => subject.test(m.subject));
}

/** The one-time code of the first mail to `to` after the first `seen` ones (decoded, so any language works). */
export async function codeAfter(mailbox: Mailbox, to: string, seen: number): Promise<string> {
  let code: string | undefined;
  await waitUntil(async () => {
    const next = mailbox.messages.filter((m) => m.to === to.toLowerCase())[seen];
    code = next ? /\b(\d{6})\b/.exec(readMail(next).text)?.[1] : undefined;
    return Boolean(code);
  });
  return code as string;
}

/** How many mails went to `to` so far. */
export const mailCount = (mailbox: Mailbox, to: string) =>
  mailbox.messages.filter((m) => m.to === to.toLowerCase()).length;
