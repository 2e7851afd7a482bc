// oidc's page-status table: every key has an error status, is one of its strings in both locales, and does not
// shadow a shared key (the site refuses that where it merges them).
import { mergePageStatuses, PAGE_STATUSES } from '@svc/signin';
import en from '../src/pages/i18n-oidc.en-US.json';
import zh from '../src/pages/i18n-oidc.zh-CN.json';
import { OIDC_PAGE_STATUSES } from '../src/pages/page-statuses';

test('every key has an error status, a string in both locales, and no shared key is shadowed', () => {
  for (const [key, status] of Object.entries(OIDC_PAGE_STATUSES)) {
    expect([key, status >= 400 && status < 500]).toEqual([key, true]);
    expect([key, Object.hasOwn(en, key) && Object.hasOwn(zh, key)]).toEqual([key, true]);
    expect([key, Object.hasOwn(PAGE_STATUSES, key)]).toEqual([key, false]);
  }
  expect(mergePageStatuses(OIDC_PAGE_STATUSES)).toEqual({ ...PAGE_STATUSES, ...OIDC_PAGE_STATUSES });
});

test('the statuses are the published ones', () => {
  expect(OIDC_PAGE_STATUSES).toEqual({ unknownClient: 400, badRedirect: 400, badRequest: 400 });
});
