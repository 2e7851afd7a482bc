// Outbound mail (nodemailer over SMTP): the one-time sign-up codes. The SMTP server is configuration.
import type { Logger } from '@svc/platform';
import nodemailer, { type Transporter } from 'nodemailer';
import type { SmtpTarget } from '../config';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** A mailer over the configured SMTP relay. */
export function createMailer(smtp: SmtpTarget, from: string, logger: Logger): Mailer {
  const transport: Transporter = nodemailer.createTransport(smtp);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      // Never log the body: it carries the code.
      logger.info({ subject: mail.subject }, 'mail sent');
    },
    close() {
      transport.close();
    },
  };
}
