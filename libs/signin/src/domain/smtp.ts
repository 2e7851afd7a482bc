// nodemailer's SMTP transport, loaded by the mailer (mailer.ts) on its first mail only; `pnpm build` emits this file
// beside main.js (smtp.js).
import nodemailer, { type Transporter } from 'nodemailer';
import type { SmtpTarget } from '../config';

export type SmtpTransport = Pick<Transporter, 'sendMail' | 'close'>;

export function openSmtpTransport(smtp: SmtpTarget): SmtpTransport {
  return nodemailer.createTransport(smtp);
}
