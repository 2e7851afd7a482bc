// Every string of the account page, in en-US and zh-CN (the locale is chosen as for the other pages).
import { type Locale, pageMessages, type Translate, tableTranslator, utcDateTime } from '@svc/signin';
import en from './i18n-account.en-US.json';
import zh from './i18n-account.zh-CN.json';

export type AccountKey = keyof typeof en;

const MESSAGES = pageMessages(en, zh);

export type AccountTranslate = Translate<AccountKey>;

/** Plain-text messages with {name} placeholders; the templates escape the result. */
export function accountTranslator(locale: Locale): AccountTranslate {
  return tableTranslator(MESSAGES, locale);
}

/** Claim names on the account page (same words as the consent page). */
export const CLAIM_NAMES: Record<Locale, Record<string, string>> = {
  'en-US': {
    email: 'Email address',
    firstName: 'First name',
    lastName: 'Last name',
    staticAvatar: 'Profile picture',
    animatedAvatar: 'Animated profile picture',
  },
  'zh-CN': {
    email: '电子邮箱地址',
    firstName: '名',
    lastName: '姓',
    staticAvatar: '头像',
    animatedAvatar: '动态头像',
  },
};

/** A date and time as the page shows it, in UTC. */
export function formatWhen(locale: Locale, at: Date): string {
  const text = utcDateTime(locale, at, 'medium');
  return locale === 'zh-CN' ? `${text}（UTC）` : `${text} UTC`;
}
