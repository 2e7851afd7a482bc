// Commands for OpenID Connect clients: `oidc-client create` prints {clientId, clientSecret} (the secret once).
import { createOidcClient, OIDC_AUTH_METHODS } from '@svc/provisioning';
import { OIDC_RESPONSE_TYPES } from '@svc/token-core';
import { UsageError } from '../flags';
import { defineCommand } from '../registry';

export const oidcClientCommands = [
  defineCommand({
    name: 'oidc-client create',
    synopsis: `--app A --redirect-uri URI [--redirect-uri URI ...] [--post-logout-redirect-uri URI ...] [--auth-method ${OIDC_AUTH_METHODS.join('|')}] [--response-type TYPE ...]   (the secret is shown once and absent for none; the application needs an OIDC authentication rule; response types default to all of: ${OIDC_RESPONSE_TYPES.join(', ')})`,
    flags: {
      app: {},
      'redirect-uri': { list: true },
      'post-logout-redirect-uri': { list: true },
      'auth-method': {},
      'response-type': { list: true },
    },
    parse: (f) => {
      const redirectUris = f.list('redirect-uri');
      if (redirectUris.length === 0) throw new UsageError('give at least one --redirect-uri');
      return {
        anchor: f.anchor('app'),
        redirectUris,
        postLogoutRedirectUris: f.list('post-logout-redirect-uri'),
        authMethod: f.oneOf('auth-method', OIDC_AUTH_METHODS),
        responseTypes: f.list('response-type'),
      };
    },
    run: (ctx, i) => createOidcClient(ctx.db(), i),
  }),
];
