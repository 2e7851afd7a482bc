// The authority a held sign-in was authenticated under: every sign-in a browser keeps (a page flow of connect,
// device or OIDC, the account page's session, the OIDC host's sign-in session) records the account's authority
// version and its subject-reset count when the person authenticates, read in the same statement that proves the
// credential, and is dropped the moment either has moved (a passkey removed or added by emailed code, a status
// change, an SSO link, an identifier reset). The issuance that follows a held sign-in names the recorded version
// (`expectedAuthorityVersion`), which the session insert checks in SQL, so a change between the page's check and
// the issue is refused too: no read-then-write window.
export interface HeldAuthority {
  /** accounts.authority_version when the person authenticated. */
  version: number;
  /** accounts.subject_resets then. */
  resets: number;
}

/**
 * Whether a session issued under `issuedUnder` (sessions.authority_version; null before sessions recorded it) has
 * lost it: its account is ACTIVE under another version. The one rule of /refresh (AuthorizationArtifactStale) and
 * of the OIDC host's /userinfo. An account that is not ACTIVE is left to the account checks, which come first.
 */
export function sessionAuthorityMoved(
  issuedUnder: number | null,
  account: { status: string; authorityVersion: number } | null | undefined,
): boolean {
  return issuedUnder !== null && account?.status === 'ACTIVE' && account.authorityVersion !== issuedUnder;
}

/**
 * Whether a held sign-in still stands: it recorded an authority (sign-ins held from before the record have none
 * and are dropped once), the account exists and neither its version nor its reset count moved since (a status
 * change moves the version; the account's status itself is the sign-in steps' own check).
 * `ignoreResets`: the account page, where the owner resets identifiers, keeps its session across a reset.
 */
export function authorityHolds(
  held: HeldAuthority | undefined,
  current: HeldAuthority | undefined,
  opts: { ignoreResets?: boolean } = {},
): boolean {
  if (!held || !current) return false;
  return held.version === current.version && (opts.ignoreResets || held.resets === current.resets);
}
