// The two page locales of the spec (en-US, zh-CN): choosing one for a request, and every string the shared
// sign-in steps show (a host adds its own strings through `translator(locale, extra)`).
import { LOCALES, type Locale, localeFromAcceptLanguage } from '@svc/platform';

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

const en = {
  lang: 'English',
  title: 'Sign in',
  signInTo: 'Sign in to {app}',
  intro:
    '{app} asked you to sign in. Use the passkey on this device, or create an account with your email address.',
  originatorHeading: 'Did you start this sign-in yourself?',
  originatorWarning:
    'Signing in gives {app} access to your account on the device where this sign-in was started, which may not be this one. Continue only if you started it yourself. If someone sent you this link or a code, or asked you to sign in, stop here and close this page.',
  passkeyHeading: 'I have an account',
  passkeyButton: 'Sign in with a passkey',
  passkeyError: 'The passkey could not be used. Try again, or use another passkey.',
  signupHeading: 'I am new here',
  emailLabel: 'Email address',
  emailButton: 'Send me a code',
  emailInvalid: 'Enter a valid email address.',
  emailNotAllowed: 'This email address cannot be used to sign in to {app}.',
  emailDomainBlocked:
    'Email addresses at {domain} are blocked by policy, so they cannot be used to sign up. Use another address.',
  codeHeading: 'Check your email',
  codeIntro: 'We sent a six-digit code to {email}. It expires in a few minutes.',
  codeLabel: 'Code',
  codeButton: 'Continue',
  codeWrong: 'That code is not right. Check the email and try again.',
  codeExpired: 'That code has expired or was tried too many times. Ask for a new one.',
  codeOther: 'Use another email address',
  registerHeading: 'Create your passkey',
  registerIntro:
    'Your email address {email} is verified. Create a passkey on this device to finish: next time you sign in with it, no password needed.',
  registerButton: 'Create a passkey',
  wrongAccount: 'That passkey belongs to another account.',
  termsHeading: 'Basic terms',
  termsIntro: 'To continue, read and accept the basic terms (revision {revision}).',
  termsAccept: 'I have read and accept the basic terms',
  termsButton: 'Accept and continue',
  termsRequired: 'Tick the box to accept the basic terms.',
  detailsHeading: 'What {app} can see',
  detailsIntro: 'Choose what to share with {app}. You can change this later.',
  detailsButton: 'Save and continue',
  share: 'Share',
  dontShare: 'Do not share',
  required: 'Required',
  optional: 'Optional',
  requiredDenied: '{app} needs this to continue: {claims}.',
  missingData: 'Fill in: {claims}.',
  invalidValue: 'Check the value of: {claims}.',
  currentValue: 'Current value: {value}',
  noValue: 'Not set',
  claim_email: 'Email address',
  claim_firstName: 'First name',
  claim_lastName: 'Last name',
  claim_staticAvatar: 'Profile picture (HTTPS URL)',
  claim_animatedAvatar: 'Animated profile picture (HTTPS URL)',
  errorHeading: 'Something went wrong',
  notFound: 'This sign-in link is not valid. Start again from the application.',
  expired: 'This link has expired. Start again from the application.',
  completed: 'This sign-in was already completed. Start again from the application if you need to.',
  accountUnavailable: 'This account cannot be used to sign in.',
  constraintMismatch: '{app} does not accept this account. Sign in with another account.',
  useAnother: 'Use another account',
  sessionExpired: 'Your session on this page expired. Reload the page and try again.',
  badForm: 'The form could not be read. Go back, reload the page and try again.',
  tooMany: 'Too many attempts. Wait a few minutes, then try again.',
  unavailable: 'The service is not available right now. Try again in a moment.',
  mailFailed: 'We could not send the email right now. Try again in a moment.',
  jsRequired: 'Passkeys need JavaScript. Turn it on for this site.',
};

export type MessageKey = keyof typeof en;

const zh: Record<MessageKey, string> = {
  lang: '简体中文',
  title: '登录',
  signInTo: '登录“{app}”',
  intro: '“{app}”请您登录。请使用本设备上的通行密钥，或用电子邮箱地址创建账户。',
  originatorHeading: '这次登录是您本人发起的吗？',
  originatorWarning:
    '登录后，“{app}”将在发起此次登录的设备上获得访问您账户的权限，该设备可能不是您正在使用的这台。只有在您本人发起此次登录时才继续。如果有人发给您这个链接或验证码，或要求您登录，请到此为止并关闭此页面。',
  passkeyHeading: '我已有账户',
  passkeyButton: '使用通行密钥登录',
  passkeyError: '无法使用该通行密钥。请重试，或换用其他通行密钥。',
  signupHeading: '我是新用户',
  emailLabel: '电子邮箱地址',
  emailButton: '发送验证码',
  emailInvalid: '请输入有效的电子邮箱地址。',
  emailNotAllowed: '此电子邮箱地址不能用于登录“{app}”。',
  emailDomainBlocked: '根据策略，{domain} 域名的电子邮箱地址已被禁止，不能用于注册。请使用其他地址。',
  codeHeading: '查收邮件',
  codeIntro: '我们已向 {email} 发送了六位数验证码，几分钟后失效。',
  codeLabel: '验证码',
  codeButton: '继续',
  codeWrong: '验证码不正确，请核对邮件后重试。',
  codeExpired: '验证码已失效或尝试次数过多，请重新获取。',
  codeOther: '使用其他电子邮箱地址',
  registerHeading: '创建通行密钥',
  registerIntro:
    '您的电子邮箱地址 {email} 已验证。请在本设备上创建通行密钥以完成注册，以后无需密码即可登录。',
  registerButton: '创建通行密钥',
  wrongAccount: '该通行密钥属于其他账户。',
  termsHeading: '基本条款',
  termsIntro: '如需继续，请阅读并接受基本条款（第 {revision} 版）。',
  termsAccept: '我已阅读并接受基本条款',
  termsButton: '接受并继续',
  termsRequired: '请勾选以接受基本条款。',
  detailsHeading: '“{app}”可以看到的信息',
  detailsIntro: '请选择要与“{app}”共享的信息。您以后可以更改。',
  detailsButton: '保存并继续',
  share: '共享',
  dontShare: '不共享',
  required: '必需',
  optional: '可选',
  requiredDenied: '“{app}”需要以下信息才能继续：{claims}。',
  missingData: '请填写：{claims}。',
  invalidValue: '请检查以下内容：{claims}。',
  currentValue: '当前值：{value}',
  noValue: '未设置',
  claim_email: '电子邮箱地址',
  claim_firstName: '名',
  claim_lastName: '姓',
  claim_staticAvatar: '头像（HTTPS 链接）',
  claim_animatedAvatar: '动态头像（HTTPS 链接）',
  errorHeading: '出错了',
  notFound: '此登录链接无效。请从应用重新开始。',
  expired: '此链接已过期。请从应用重新开始。',
  completed: '此登录已完成。如有需要，请从应用重新开始。',
  accountUnavailable: '此账户无法用于登录。',
  constraintMismatch: '“{app}”不接受此账户。请使用其他账户登录。',
  useAnother: '使用其他账户',
  sessionExpired: '此页面的会话已过期。请刷新页面后重试。',
  badForm: '无法读取此表单。请返回并刷新页面后重试。',
  tooMany: '尝试次数过多。请等待几分钟后再试。',
  unavailable: '服务暂时不可用，请稍后重试。',
  mailFailed: '暂时无法发送邮件，请稍后重试。',
  jsRequired: '通行密钥需要 JavaScript，请为本网站启用。',
};

const MESSAGES: Messages<MessageKey> = { 'en-US': en, 'zh-CN': zh };

/** A host's own page strings in both locales (its final step, its errors), added to the shared ones. */
export type Messages<K extends string> = Record<Locale, Record<K, string>>;

/** Plain-text messages with {name} placeholders; the page templates escape the result. */
export type Translate<K extends string = MessageKey> = (
  key: K,
  vars?: Record<string, string | number>,
) => string;

/**
 * The translator of a locale: the shared sign-in strings, plus the host's own when given (a host key never
 * replaces a shared one: the shared table wins, so a host cannot reword a security message by accident).
 */
export function translator<K extends string = never>(
  locale: Locale,
  extra?: Messages<K>,
): Translate<MessageKey | K> {
  const table = { ...extra?.[locale], ...MESSAGES[locale] } as Record<MessageKey | K, string>;
  return (key, vars = {}) =>
    (table[key] ?? key).replace(/\{(\w+)\}/g, (m, name: string) => String(vars[name] ?? m));
}
