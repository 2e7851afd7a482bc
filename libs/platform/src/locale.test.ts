// localeFromAcceptLanguage: the spec's two locales picked from an Accept-Language header, weights respected.
import { localeFromAcceptLanguage } from './locale';

test.each([
  [undefined, 'en-US'],
  ['', 'en-US'],
  ['zh-CN', 'zh-CN'],
  ['zh', 'zh-CN'],
  ['ZH-hant-TW', 'zh-CN'],
  ['en-GB', 'en-US'],
  ['fr-FR, de', 'en-US'],
  ['fr, zh-CN;q=0.5, en;q=0.4', 'zh-CN'],
  ['en;q=0.3, zh;q=0.7', 'zh-CN'],
  ['zh;q=0, en', 'en-US'],
  ['zh;q=0.5, en;q=0.5', 'zh-CN'],
  ['zhx, english', 'en-US'],
  ['zh;q=abc, en', 'en-US'],
  ['*', 'en-US'],
] as const)('%s -> %s', (header, locale) => {
  expect(localeFromAcceptLanguage(header)).toBe(locale);
});
