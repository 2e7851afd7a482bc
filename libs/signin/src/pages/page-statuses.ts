// The HTTP status of every page error, by the message key it shows: a throw site names the key, this table answers
// for it (like the reason table, libs/platform/src/reasons.ts). A host adds its own keys' statuses in a table
// beside its own strings; the site merges them (site.ts).
import type { MessageKey } from './i18n';

/** A host's own page errors: the statuses of its message keys that a page error may show. */
export type PageStatuses<K extends string> = Readonly<Record<K, number>>;

/** The shared keys a page error (or a bare message page) shows, and their statuses. */
export const PAGE_STATUSES = {
  /** An unknown link or page, or a step that needs an application and has none. */
  notFound: 404,
  /** A link past its lifetime (docs/oidc.md: the plain 410 page). */
  expired: 410,
  /** A request already finished. */
  completed: 410,
  /** A post without the flow's CSRF value or from another Origin, or a flow rotated away (docs/oidc.md: 403). */
  sessionExpired: 403,
  /** Signed in as another account than the page is for. */
  wrongAccount: 403,
  /** The account may not sign in (not active). */
  accountUnavailable: 403,
  /** The account does not meet the application's constraints. */
  constraintMismatch: 403,
} as const satisfies Partial<Record<MessageKey, number>>;

/** A shared key a page error may name. */
export type PageErrorKey = keyof typeof PAGE_STATUSES;

/** The one table of a site: the shared statuses and the host's own (a host key may not shadow a shared one). */
export function mergePageStatuses(
  own: Readonly<Partial<Record<string, number>>> | undefined,
): Readonly<Record<string, number>> {
  const shadowed = Object.keys(own ?? {}).filter((k) => Object.hasOwn(PAGE_STATUSES, k));
  if (shadowed.length) throw new Error(`page statuses shadow the shared ones: ${shadowed.join(', ')}`);
  return { ...PAGE_STATUSES, ...(own as Readonly<Record<string, number>>) };
}
