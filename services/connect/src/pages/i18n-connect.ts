// connect's own page strings (the inquiry's return, errands, the terms page), in en-US and zh-CN, added to the
// shared sign-in strings of @svc/signin.
import { pageMessages } from '@svc/signin';
import en from './i18n-connect.en-US.json';
import zh from './i18n-connect.zh-CN.json';

export type ConnectKey = keyof typeof en;

export const CONNECT_MESSAGES = pageMessages(en, zh);
