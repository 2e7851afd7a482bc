// The OIDC host's own page strings (its error pages and the consent review of prompt=consent), in en-US and zh-CN,
// added to the shared sign-in strings of @svc/signin.
import type { Messages } from '@svc/signin';

const en = {
  unknownClient:
    'This sign-in request names an application that is not registered here. Return to the application and try again.',
  badRedirect:
    'This sign-in request asks to send you back to an address the application has not registered, so it was stopped. Return to the application and try again.',
  badRequest: 'This sign-in request is not valid. Return to the application and try again.',
  reviewHeading: 'Review what {app} can see',
  cancel: 'Cancel and return to {app}',
};

export type OidcKey = keyof typeof en;

const zh: Record<OidcKey, string> = {
  unknownClient: '此登录请求指向未在此注册的应用。请返回该应用后重试。',
  badRedirect: '此登录请求要求将您送回该应用未注册的地址，因此已被阻止。请返回该应用后重试。',
  badRequest: '此登录请求无效。请返回该应用后重试。',
  reviewHeading: '查看“{app}”可以看到的信息',
  cancel: '取消并返回“{app}”',
};

export const OIDC_MESSAGES: Messages<OidcKey> = { 'en-US': en, 'zh-CN': zh };
