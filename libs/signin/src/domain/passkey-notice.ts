// The security notice mailed to an account's owner whenever a passkey is added to it (sign-in flow or account
// page): when, from which browser, and the account page link where it can be removed. In the owner's language
// when the account has one, else in both.
import { type Clock, type Logger, ServiceError } from '@svc/platform';
import type { Locale } from '../pages/i18n';
import { utcDateTime } from './locale';
import type { Mailer } from './mailer';
import type { DeviceSummary } from './user-agent';

export interface PasskeyAddedNotice {
  to: string;
  /** The owner's remembered page language; null sends both languages. */
  locale: Locale | null;
  at: Date;
  device: DeviceSummary;
  accountUrl: string;
}

const SUBJECT: Record<Locale, string> = {
  'en-US': 'A passkey was added to your account',
  'zh-CN': '您的账户添加了新的通行密钥',
};

function when(locale: Locale, at: Date): string {
  const text = utcDateTime(locale, at, 'long');
  return locale === 'zh-CN' ? `${text}（UTC）` : `${text} (UTC)`;
}

function device(locale: Locale, d: DeviceSummary): string {
  if (locale === 'zh-CN') {
    if (d.browser && d.system) return `${d.system} 上的 ${d.browser}`;
    return d.browser ?? d.system ?? '未知浏览器';
  }
  if (d.browser && d.system) return `${d.browser} on ${d.system}`;
  return d.browser ?? d.system ?? 'an unknown browser';
}

function body(locale: Locale, n: PasskeyAddedNotice): string {
  if (locale === 'zh-CN') {
    return [
      `${when(locale, n.at)}，有人通过 ${device(locale, n.device)} 为您的账户（${n.to}）添加了一个新的通行密钥。`,
      '',
      '如果是您本人操作，无需处理。',
      `如果不是您本人操作，请立即前往账户页面删除该通行密钥：${n.accountUrl}`,
      '并请检查您的电子邮箱是否安全：添加者可能读取了发送到该邮箱的验证码。',
    ].join('\n');
  }
  return [
    `A new passkey was added to your account (${n.to}) on ${when(locale, n.at)} from ${device(locale, n.device)}.`,
    '',
    'If this was you, there is nothing to do.',
    `If it was not you, remove the passkey on your account page now: ${n.accountUrl}`,
    'Then secure your email account: whoever added it may have read the code we sent there.',
  ].join('\n');
}

/** Sends the notice; a failure is thrown so that the caller can refuse to add the passkey without it. */
export async function sendPasskeyAddedNotice(mailer: Mailer, notice: PasskeyAddedNotice): Promise<void> {
  const locales: Locale[] = notice.locale ? [notice.locale] : ['en-US', 'zh-CN'];
  await mailer.send({
    to: notice.to,
    subject: locales.map((l) => SUBJECT[l]).join(' / '),
    text: locales.map((l) => body(l, notice)).join('\n\n----\n\n'),
  });
}

/** How long the notice may take before the passkey is refused (the mail is sent inside the adding transaction). */
export const NOTICE_TIMEOUT_MS = 10_000;

/**
 * The `beforeCommit` of adding a passkey to an existing account: mails the owner, bounded in time, so that a
 * passkey is added only once its owner's notice has been accepted by the mail server.
 */
export function noticeBeforeCommit(
  deps: { mailer: Mailer; accountPageUrl: string; clock: Clock; logger: Logger },
  device: DeviceSummary,
): (owner: { email: string | null; locale: string | null }) => Promise<void> {
  return async (owner) => {
    if (!owner.email) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('passkey notice timed out')), NOTICE_TIMEOUT_MS);
    });
    try {
      await Promise.race([
        sendPasskeyAddedNotice(deps.mailer, {
          to: owner.email,
          locale: owner.locale === 'en-US' || owner.locale === 'zh-CN' ? owner.locale : null,
          at: new Date(deps.clock()),
          device,
          accountUrl: deps.accountPageUrl,
        }),
        timeout,
      ]);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'passkey notice failed; passkey not added');
      throw new ServiceError('TemporarilyUnavailable', { cause: err });
    } finally {
      clearTimeout(timer);
    }
  };
}
