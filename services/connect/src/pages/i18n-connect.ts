// connect's own page strings (the inquiry's return, errands, the terms page), in en-US and zh-CN, added to the
// shared sign-in strings of @svc/signin.
import type { Messages } from '@svc/signin';

const en = {
  reauthHeading: 'Confirm it is you',
  reauthIntro: '{app} needs a few changes to your account. Confirm it is you with your passkey first.',
  reauthEmailIntro: 'Your account has no passkey. We will send a code to {email}.',
  reauthEmailButton: 'Email me a code',
  revealHeading: 'You are signed in',
  revealIntro: 'Copy this confirmation key and paste it into {app}.',
  copy: 'Copy',
  copied: 'Copied',
  pollHeading: 'You are signed in',
  pollIntro: 'You can close this page and return to {app}.',
  errandDoneHeading: 'All done',
  errandDoneIntro: 'Your changes are saved. You can close this page and return to {app}.',
  errandCompleted: 'These changes were already made. You can close this page.',
  termsTitle: 'Basic terms, revision {revision}',
  recentSignInNeeded: 'Confirm it is you with a passkey first, then try again.',
};

export type ConnectKey = keyof typeof en;

const zh: Record<ConnectKey, string> = {
  reauthHeading: '确认是您本人',
  reauthIntro: '“{app}”需要您更新账户信息。请先使用通行密钥确认身份。',
  reauthEmailIntro: '您的账户没有通行密钥。我们将向 {email} 发送验证码。',
  reauthEmailButton: '发送验证码',
  revealHeading: '您已登录',
  revealIntro: '请复制此确认密钥，并粘贴到“{app}”中。',
  copy: '复制',
  copied: '已复制',
  pollHeading: '您已登录',
  pollIntro: '您可以关闭此页面，返回“{app}”。',
  errandDoneHeading: '已完成',
  errandDoneIntro: '您的更改已保存。您可以关闭此页面，返回“{app}”。',
  errandCompleted: '这些更改已完成。您可以关闭此页面。',
  termsTitle: '基本条款（第 {revision} 版）',
  recentSignInNeeded: '请先使用通行密钥确认是您本人，然后重试。',
};

export const CONNECT_MESSAGES: Messages<ConnectKey> = { 'en-US': en, 'zh-CN': zh };
