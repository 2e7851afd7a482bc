// The statuses of connect's own page errors, by the message key they show (beside its strings; the shared keys'
// are @svc/signin's PAGE_STATUSES, merged where connect's site is created).
import type { ConnectKey } from './i18n-connect';

export const CONNECT_PAGE_STATUSES = {
  /** An errand whose changes were already made. */
  errandCompleted: 410,
  /** An account-page change that needs a recent passkey sign-in first. */
  recentSignInNeeded: 403,
} as const satisfies Partial<Record<ConnectKey, number>>;

/** A connect key a page error may name. */
export type ConnectPageError = keyof typeof CONNECT_PAGE_STATUSES;
