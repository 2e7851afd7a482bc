// The OIDC host's own page strings (its error pages and the consent review of prompt=consent), in en-US and zh-CN,
// added to the shared sign-in strings of @svc/signin.
import { pageMessages } from '@svc/signin';
import en from './i18n-oidc.en-US.json';
import zh from './i18n-oidc.zh-CN.json';

export type OidcKey = keyof typeof en;

export const OIDC_MESSAGES = pageMessages(en, zh);
