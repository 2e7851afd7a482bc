// Outbound mail (nodemailer over SMTP): the one-time sign-up codes. The SMTP server is configuration.
import type { Logger } from '@svc/platform';
import nodemailer, { type Transporter } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** SMTP_URL (smtp://user:pass@host:port) or SMTP_HOST + SMTP_PORT (+ SMTP_USER, SMTP_PASS, SMTP_SECURE). */
export function createMailer(env: NodeJS.ProcessEnv, from: string, logger: Logger): Mailer {
  const transport: Transporter = env.SMTP_URL
    ? nodemailer.createTransport(env.SMTP_URL)
    : nodemailer.createTransport({
        host: env.SMTP_HOST ?? '127.0.0.1',
        port: Number(env.SMTP_PORT ?? 25),
        secure: env.SMTP_SECURE === 'true',
        auth: env.SMTP_USER ? { user: env.SMTP_USER, pass: env.SMTP_PASS ?? '' } : undefined,
      });
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
