// The statuses of the OIDC host's own page errors, by the message key they show (beside its strings; the shared
// keys' are @svc/signin's PAGE_STATUSES, merged where the OIDC host's site is created).
import type { OidcKey } from './i18n-oidc';

/** OpenID Connect Core 3.1.2.6: an authorization request that cannot be redirected back is shown, as a 400. */
export const OIDC_PAGE_STATUSES = {
  unknownClient: 400,
  badRedirect: 400,
  badRequest: 400,
} as const satisfies Partial<Record<OidcKey, number>>;

/** An OIDC key a page error may name. */
export type OidcPageError = keyof typeof OIDC_PAGE_STATUSES;
