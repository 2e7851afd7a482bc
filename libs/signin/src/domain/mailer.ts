// Outbound mail (nodemailer over SMTP): the one-time sign-up codes. The SMTP server is configuration.
import type { Logger } from '@svc/platform';
import type { SmtpTarget } from '../config';
import type { SmtpTransport } from './smtp';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * A mailer over the configured SMTP relay. nodemailer is loaded and its transport opened on the first mail (smtp.ts,
 * in a built host smtp.js beside main.js): most processes of a host never send one, and the library costs about
 * 2 MiB of heap.
 */
export function createMailer(
  smtp: SmtpTarget,
  from: string,
  logger: Logger,
  /** The development mailbox's page, named in each "mail sent" line so a person knows where to read the code. */
  mailboxUrl?: string,
): Mailer {
  const sent = mailboxUrl ? `mail sent; read it at ${mailboxUrl}/` : 'mail sent';
  let transport: SmtpTransport | undefined;
  return {
    async send(mail) {
      transport ??= (require('./smtp') as typeof import('./smtp')).openSmtpTransport(smtp);
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      // Never log the body: it carries the code.
      logger.info({ subject: mail.subject }, sent);
    },
    close() {
      transport?.close();
      transport = undefined;
    },
  };
}
