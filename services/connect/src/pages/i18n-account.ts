// Every string of the account page, in en-US and zh-CN (the locale is chosen as for the other pages).
import type { Locale } from '@svc/signin';

const en = {
  brand: 'Your account',
  signInHeading: 'Your account',
  signInIntro:
    'Sign in with your passkey to see the applications you use, what they can see, and your passkeys.',
  signInButton: 'Sign in with a passkey',
  signInHelp:
    'No passkey yet? Sign in to any application that uses this service first; it will help you make one.',
  heading: 'Your account',
  signedInAs: 'Signed in as {email}.',
  signOut: 'Sign out',
  appsHeading: 'Applications you use',
  appsNone: 'You have not used any application yet.',
  sectorIntro: 'These applications know you by the same identifier: {apps}.',
  consentIntro: 'What {app} can see:',
  consentSave: 'Save choices for {app}',
  noClaims: '{app} does not ask for any of your details.',
  undecided: 'Not decided yet',
  share: 'Share',
  dontShare: 'Do not share',
  required: 'Required',
  optional: 'Optional',
  fallback: 'Optional, else a made-up value',
  requiredNote: 'If you stop sharing a required detail, {app} asks you again the next time you use it.',
  resetHeading: 'Reset my identifier for these applications',
  resetWarning:
    'These applications will see you as a new person: they can no longer connect you to what they stored about you under your old identifier (your data, purchases or settings there may be lost to you), and you will be signed out of them everywhere. Applications outside this group are not affected. This cannot be undone.',
  resetConfirm: 'I understand. Give me a new identifier for these applications.',
  resetButton: 'Reset my identifier',
  resetNeedsConfirm: 'Tick the box to confirm the reset.',
  resetDone: 'Done. {apps} now know you by a new identifier, and you are signed out of them.',
  passkeysHeading: 'Your passkeys',
  passkeysIntro:
    'Passkeys let you sign in without a password. Remove any you do not recognise: removing a passkey also signs you out of every application, so whoever used it is signed out too. You then sign in again with a passkey you keep.',
  passkeyUnnamed: 'Passkey',
  passkeyAdded: 'Added {date}',
  passkeyLastUsed: 'Last used {date}',
  passkeyNeverUsed: 'Not used to sign in yet',
  renameLabel: 'Name of this passkey',
  renameButton: 'Rename',
  removeButton: 'Remove',
  removeOnlyOne: 'This is your only passkey, so it cannot be removed. Add another one first.',
  addHeading: 'Add a passkey',
  addIntro: 'Add a passkey on this device or a security key. We will email you to confirm it was added.',
  addButton: 'Add a passkey',
  passkeyError: 'The passkey could not be added or used. Try again.',
  addedNotice: 'Your new passkey is added. We emailed you about it.',
  renamedNotice: 'The passkey is renamed.',
  renameInvalid: 'Give the passkey a name of 1 to 64 characters.',
  removedNotice:
    'The passkey is removed: it can no longer sign in, and your applications will ask you to sign in again.',
  lastNotice: 'You cannot remove your last passkey.',
  confirmIntro: 'To add or remove a passkey, first confirm it is you with one of your passkeys.',
  confirmButton: 'Confirm with a passkey',
  confirmFirst: 'Confirm it is you with a passkey first, then add or remove passkeys.',
  consentSaved: 'Your choices for {app} are saved.',
  signedOutNotice: 'You are signed out.',
  sessionEnded:
    'You were signed out: this account cannot be used right now, or the passkey you signed in with was removed.',
  jsRequired: 'Passkeys need JavaScript. Turn it on for this site.',
};

export type AccountKey = keyof typeof en;

const zh: Record<AccountKey, string> = {
  brand: '您的账户',
  signInHeading: '您的账户',
  signInIntro: '使用通行密钥登录，查看您使用的应用、它们可以看到的信息以及您的通行密钥。',
  signInButton: '使用通行密钥登录',
  signInHelp: '还没有通行密钥？请先登录任意一个使用本服务的应用，它会引导您创建。',
  heading: '您的账户',
  signedInAs: '已登录：{email}',
  signOut: '退出登录',
  appsHeading: '您使用的应用',
  appsNone: '您还没有使用过任何应用。',
  sectorIntro: '以下应用通过同一个标识符识别您：{apps}。',
  consentIntro: '“{app}”可以看到的信息：',
  consentSave: '保存对“{app}”的选择',
  noClaims: '“{app}”不需要您的任何个人信息。',
  undecided: '尚未选择',
  share: '共享',
  dontShare: '不共享',
  required: '必需',
  optional: '可选',
  fallback: '可选，否则使用虚构的值',
  requiredNote: '如果您停止共享必需的信息，下次使用“{app}”时它会再次询问您。',
  resetHeading: '重置我在这些应用中的标识符',
  resetWarning:
    '这些应用将把您视为一个新用户：它们无法再将您与以旧标识符保存的信息关联起来（您在其中的数据、购买记录或设置可能无法再使用），并且您将在所有设备上退出这些应用。此组以外的应用不受影响。此操作无法撤销。',
  resetConfirm: '我已了解。请为这些应用给我一个新的标识符。',
  resetButton: '重置标识符',
  resetNeedsConfirm: '请勾选复选框以确认重置。',
  resetDone: '已完成。{apps} 现在通过新的标识符识别您，您已退出这些应用。',
  passkeysHeading: '您的通行密钥',
  passkeysIntro:
    '通行密钥让您无需密码即可登录。如有您不认识的通行密钥，请将其删除：删除通行密钥会让您退出所有应用，使用过该通行密钥的人也会随之退出。之后请使用您保留的通行密钥重新登录。',
  passkeyUnnamed: '通行密钥',
  passkeyAdded: '添加于 {date}',
  passkeyLastUsed: '上次使用：{date}',
  passkeyNeverUsed: '尚未用于登录',
  renameLabel: '通行密钥名称',
  renameButton: '重命名',
  removeButton: '删除',
  removeOnlyOne: '这是您唯一的通行密钥，因此无法删除。请先添加另一个。',
  addHeading: '添加通行密钥',
  addIntro: '在本设备或安全密钥上添加通行密钥。添加后我们会发送邮件通知您。',
  addButton: '添加通行密钥',
  passkeyError: '无法添加或使用该通行密钥，请重试。',
  addedNotice: '新的通行密钥已添加，我们已发送邮件通知您。',
  renamedNotice: '通行密钥已重命名。',
  renameInvalid: '请为通行密钥输入 1 到 64 个字符的名称。',
  removedNotice: '通行密钥已删除，不能再用于登录；您的应用会要求您重新登录。',
  lastNotice: '您不能删除最后一个通行密钥。',
  confirmIntro: '要添加或删除通行密钥，请先使用您的一个通行密钥确认是您本人。',
  confirmButton: '使用通行密钥确认',
  confirmFirst: '请先使用通行密钥确认是您本人，然后再添加或删除通行密钥。',
  consentSaved: '您对“{app}”的选择已保存。',
  signedOutNotice: '您已退出登录。',
  sessionEnded: '您已退出登录：此账户目前无法使用，或者您登录时使用的通行密钥已被删除。',
  jsRequired: '通行密钥需要 JavaScript，请为本网站启用。',
};

const MESSAGES: Record<Locale, Record<AccountKey, string>> = { 'en-US': en, 'zh-CN': zh };

export type AccountTranslate = (key: AccountKey, vars?: Record<string, string | number>) => string;

/** Plain-text messages with {name} placeholders; the templates escape the result. */
export function accountTranslator(locale: Locale): AccountTranslate {
  const table = MESSAGES[locale];
  return (key, vars = {}) => table[key].replace(/\{(\w+)\}/g, (m, name: string) => String(vars[name] ?? m));
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

/** A date and time as the page shows it, in UTC (the server does not know the reader's time zone). */
export function formatWhen(locale: Locale, at: Date): string {
  const text = new Intl.DateTimeFormat(locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
    hourCycle: 'h23',
  }).format(at);
  return locale === 'zh-CN' ? `${text}（UTC）` : `${text} UTC`;
}
