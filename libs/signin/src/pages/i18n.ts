// The two page locales of the spec (en-US, zh-CN): choosing one for a request, and every string the shared
// sign-in steps show (a host adds its own strings through `translator(locale, extra)`).
import { LOCALES, type Locale, localeFromAcceptLanguage } from '@svc/platform';
import en from './i18n.en-US.json';
import zh from './i18n.zh-CN.json';

export { LOCALES, type Locale };

/** ?lang= wins (and is remembered in a cookie), then the cookie, then Accept-Language, then English. */
export function pickLocale(
  query: unknown,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): Locale {
  for (const v of [query, cookie])
    if (typeof v === 'string' && (LOCALES as readonly string[]).includes(v)) return v as Locale;
  return localeFromAcceptLanguage(acceptLanguage);
}

/** A host's own page strings in both locales (its final step, its errors), added to the shared ones. */
export type Messages<K extends string> = Record<Locale, Record<K, string>>;

/** Plain-text messages with {name} placeholders; the page templates escape the result. */
export type Translate<K extends string = MessageKey> = (
  key: K,
  vars?: Record<string, string | number>,
) => string;

/**
 * Page strings from their two JSON catalogs (`<name>.en-US.json`, `<name>.zh-CN.json`, beside the module that
 * loads them; translators edit those): en-US names the keys, zh-CN must have exactly the same ones (a missing key
 * fails to compile, an extra one at load).
 */
export function pageMessages<K extends string>(
  enUS: Record<K, string>,
  zhCN: Record<NoInfer<K>, string>,
): Messages<K> {
  const extra = Object.keys(zhCN).filter((k) => !Object.hasOwn(enUS, k));
  if (extra.length) throw new Error(`zh-CN page strings without an en-US original: ${extra.join(', ')}`);
  return { 'en-US': enUS, 'zh-CN': zhCN };
}

export type MessageKey = keyof typeof en;

/**
 * A wait in words of the locale ("45 seconds", "10 minutes"; "45秒", "10分钟"): seconds up to two minutes, then
 * whole minutes rounded up, so the page never promises less than the wait.
 */
export function formatWait(locale: Locale, seconds: number): string {
  const minutes = seconds > 120;
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: minutes ? 'minute' : 'second',
    unitDisplay: 'long',
  }).format(minutes ? Math.ceil(seconds / 60) : seconds);
}

const MESSAGES = pageMessages(en, zh);

function fill(text: string, vars: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, name: string) => String(vars[name] ?? m));
}

/** The translator of a locale over one table of strings only (a page of its own, such as connect's account page). */
export function tableTranslator<K extends string>(messages: Messages<K>, locale: Locale): Translate<K> {
  const table = messages[locale];
  return (key, vars = {}) => fill(table[key] ?? key, vars);
}

/**
 * The translator of a locale: the shared sign-in strings, plus the host's own when given (a host key never
 * replaces a shared one: the shared table wins, so a host cannot reword a security message by accident).
 */
export function translator<K extends string = never>(
  locale: Locale,
  extra?: Messages<K>,
): Translate<MessageKey | K> {
  const table = mergedTable(locale, extra) as Record<MessageKey | K, string>;
  return (key, vars = {}) => fill(table[key] ?? key, vars);
}

// The merged table of each (host table, locale), built once: every page view asks for a translator, and the tables
// are constants (JSON catalogs), so copying them on every request was only garbage.
const merged = new WeakMap<object, Partial<Record<Locale, Record<string, string>>>>();

function mergedTable(locale: Locale, extra: Messages<string> | undefined): Record<string, string> {
  const key: object = extra ?? MESSAGES;
  let byLocale = merged.get(key);
  if (!byLocale) {
    byLocale = {};
    merged.set(key, byLocale);
  }
  byLocale[locale] ??= { ...extra?.[locale], ...MESSAGES[locale] };
  return byLocale[locale];
}
