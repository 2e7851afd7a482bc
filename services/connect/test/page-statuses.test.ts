// connect's page-status table: every key has an error status, is one of its strings in both locales, and does not
// shadow a shared key (the site refuses that where it merges them); the statuses are the published ones.
import { PAGE_STATUSES } from '@svc/signin';
import { expectPageStatusTable } from '@svc/testkit';
import en from '../src/pages/i18n-connect.en-US.json';
import zh from '../src/pages/i18n-connect.zh-CN.json';
import { CONNECT_PAGE_STATUSES } from '../src/pages/page-statuses';

test('every key has an error status, a string in both locales, and no shared key is shadowed', () => {
  expectPageStatusTable(CONNECT_PAGE_STATUSES, [en, zh], PAGE_STATUSES);
});

test('the statuses are the published ones', () => {
  expect(CONNECT_PAGE_STATUSES).toEqual({ errandCompleted: 410, recentSignInNeeded: 403 });
});
