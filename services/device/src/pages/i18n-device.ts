// The approval page's own strings (code entry, the confirmation screen, the outcome), in en-US and zh-CN, added to
// the shared sign-in strings of @svc/signin.
import { pageMessages } from '@svc/signin';
import en from './i18n-device.en-US.json';
import zh from './i18n-device.zh-CN.json';

export type DeviceKey = keyof typeof en;

export const DEVICE_MESSAGES = pageMessages(en, zh);
