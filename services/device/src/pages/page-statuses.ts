// The statuses of the approval page's own page errors, by the message key they show (beside its strings; the
// shared keys' are @svc/signin's PAGE_STATUSES, merged where the device host's site is created).
import type { DeviceKey } from './i18n-device';

export const DEVICE_PAGE_STATUSES = {
  /** The request is no longer waiting: approved, denied or expired. */
  requestGone: 410,
} as const satisfies Partial<Record<DeviceKey, number>>;

/** A device key a page error may name. */
export type DevicePageError = keyof typeof DEVICE_PAGE_STATUSES;
