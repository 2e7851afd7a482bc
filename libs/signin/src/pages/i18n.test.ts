// The page strings: every catalog pair has the same keys, a host's table cannot reword a shared string, and
// placeholders are filled (an unknown one is left as written).
import { formatWait, pageMessages, tableTranslator, translator } from './i18n';
import en from './i18n.en-US.json';
import zh from './i18n.zh-CN.json';

test('the shared catalogs have the same keys, none empty', () => {
  expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  for (const table of [en, zh]) for (const text of Object.values(table)) expect(text.trim()).not.toBe('');
});

test('a zh-CN catalog with a key en-US lacks is refused at load', () => {
  const enUS = { hello: 'Hello' };
  expect(() => pageMessages(enUS, { hello: '你好', extra: '多余' } as typeof enUS)).toThrow(
    'zh-CN page strings without an en-US original: extra',
  );
});

test('placeholders are filled; the shared table wins over a host key of the same name', () => {
  const host = pageMessages(
    { greet: 'Hi {name}, {missing}', title: 'Reworded' },
    { greet: '你好 {name}', title: '改' },
  );
  expect(tableTranslator(host, 'en-US')('greet', { name: 'Ada' })).toBe('Hi Ada, {missing}');
  expect(tableTranslator(host, 'zh-CN')('greet', { name: 'Ada' })).toBe('你好 Ada');
  expect(translator('en-US', host)('title')).toBe(en.title);
  expect(translator('zh-CN', host)('signInTo', { app: 'X' })).toBe('登录“X”');
});

test('a wait in words: seconds up to two minutes, then whole minutes rounded up, in both locales', () => {
  expect(formatWait('en-US', 1)).toBe('1 second');
  expect(formatWait('en-US', 60)).toBe('60 seconds');
  expect(formatWait('en-US', 120)).toBe('120 seconds');
  expect(formatWait('en-US', 121)).toBe('3 minutes');
  expect(formatWait('en-US', 600)).toBe('10 minutes');
  expect(formatWait('zh-CN', 45)).toMatch(/^45秒/);
  expect(formatWait('zh-CN', 600)).toBe('10分钟');
  // The 429 page's text names the wait, never a fixed "few minutes".
  expect(translator('en-US')('tooMany', { wait: formatWait('en-US', 45) })).toBe(
    'Too many attempts. Try again in 45 seconds.',
  );
  expect(translator('zh-CN')('tooMany', { wait: formatWait('zh-CN', 600) })).toBe(
    '尝试次数过多。请在10分钟后再试。',
  );
});
