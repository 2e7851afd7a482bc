// The page-status table: every shared key a page error names has a status and a string in both locales, the
// statuses the host docs publish (docs/oidc.md: 410 expired, 403 for a post without the flow's CSRF value), and a
// host's table cannot shadow a shared key.
import en from './i18n.en-US.json';
import zh from './i18n.zh-CN.json';
import { mergePageStatuses, PAGE_STATUSES, type PageErrorKey } from './page-statuses';

describe('PAGE_STATUSES', () => {
  test('every key has an error status and is a message of both locales', () => {
    for (const [key, status] of Object.entries(PAGE_STATUSES)) {
      expect([key, status >= 400 && status < 500]).toEqual([key, true]);
      expect([key, Object.hasOwn(en, key) && Object.hasOwn(zh, key)]).toEqual([key, true]);
    }
  });

  test('the published statuses: 404 unknown, 410 expired or finished, 403 refused', () => {
    const keysOf = (status: number) =>
      Object.keys(PAGE_STATUSES).filter((k) => PAGE_STATUSES[k as PageErrorKey] === status);
    expect([keysOf(404), keysOf(410), keysOf(403)]).toEqual([
      ['notFound'],
      ['expired', 'completed'],
      ['sessionExpired', 'wrongAccount', 'accountUnavailable', 'constraintMismatch'],
    ]);
    expect(Object.keys(PAGE_STATUSES)).toHaveLength(7);
  });

  test("a host's own keys are merged; shadowing a shared key is refused", () => {
    expect(mergePageStatuses({ requestGone: 410 })).toEqual({ ...PAGE_STATUSES, requestGone: 410 });
    expect(() => mergePageStatuses({ expired: 400 })).toThrow('shadow');
  });
});
