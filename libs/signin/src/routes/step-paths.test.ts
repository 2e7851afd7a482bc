// The step paths a host lists must share one page path: the pages post to `${target.base}/<step>`.
import { checkStepPaths } from './sign-in-steps';

test('accepts the steps of one page path, path parameters included', () => {
  expect(() =>
    checkStepPaths({
      email: '/inquiries/:exposureKey/email',
      code: '/inquiries/:exposureKey/email/code',
      authentication: '/inquiries/:exposureKey/passkey/authentication',
    }),
  ).not.toThrow();
});

test('refuses a step declared under another page path', () => {
  expect(() => checkStepPaths({ email: '/device/email', code: '/devices/email/code' })).toThrow(
    'sign-in step code: /devices/email/code is not under /device',
  );
});
