// id_token_hint at /authorize (OIDC Core 3.1.2.1): an ID token this provider issued to this client names the
// person the client expects. When the browser's sign-in is someone else (or the hint is not such a token), the
// held sign-in does not answer the request: prompt=none hears login_required, otherwise the person signs in.
import { EndSessionRefused, verifyIdTokenHint } from './end-session';
import type { OidcClient, OidcDomainDeps } from './ports';

/** The account an id_token_hint names for `client`, or undefined when the hint is not one of its ID tokens. */
export async function hintedAccount(
  deps: OidcDomainDeps,
  client: OidcClient,
  hint: string,
): Promise<string | undefined> {
  try {
    const claims = await verifyIdTokenHint(deps, hint);
    if (claims.aud !== client.clientId) return undefined;
    // Only a current subject: a hint from before an identifier reset names no one (never the old-to-new link).
    return await deps.ports.sectorSubjects.accountBehindSubject(client.applicationId, claims.sub, {
      current: true,
    });
  } catch (err) {
    if (err instanceof EndSessionRefused) return undefined;
    throw err;
  }
}
