// What /authorize needs of a registered client (its id, redirect URIs, response types, whether it is public): the
// request's checks and the interaction pages read a client through this, so an inactive client is no client.
import { type OidcResponseType, parseResponseType } from '@svc/token-core';
import type { AuthorizeClient } from './authorize-request';
import type { OidcClient } from './ports';

/** The client as /authorize sees it; undefined for an unknown or inactive client. */
export function authorizeClientOf(client: OidcClient | undefined): AuthorizeClient | undefined {
  if (!client?.active) return undefined;
  return {
    clientId: client.clientId,
    redirectUris: client.redirectUris,
    responseTypes: client.responseTypes
      .map(parseResponseType)
      .filter((t): t is OidcResponseType => t !== undefined),
    isPublic: client.authMethod === 'none',
  };
}
