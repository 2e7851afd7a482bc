// Commands for OpenID Connect clients: `oidc-client create` prints {clientId, clientSecret} (the secret once).
import { createOidcClient, OIDC_AUTH_METHODS, OIDC_GRANTS } from '@svc/provisioning';
import { OIDC_RESPONSE_TYPES } from '@svc/token-core';
import { UsageError } from '../flags';
import { defineCommand } from '../registry';

export const oidcClientCommands = [
  defineCommand({
    name: 'oidc-client create',
    synopsis: `--app A --redirect-uri URI [--redirect-uri URI ...] [--post-logout-redirect-uri URI ...] [--auth-method ${OIDC_AUTH_METHODS.join('|')}] [--response-type TYPE ...] [--grant ${OIDC_GRANTS.join('|')} ...] [--web-origin ORIGIN ...]   (the secret is shown once and absent for none; the application needs an OIDC authentication rule; response types default to code, the others opt-in: ${OIDC_RESPONSE_TYPES.join(', ')}; grants default to authorization_code, and a client with only device_code has no redirect URI; web origins may read /token, /userinfo and revocation answers from a browser)`,
    flags: {
      app: {},
      'redirect-uri': { list: true },
      'post-logout-redirect-uri': { list: true },
      'auth-method': {},
      'response-type': { list: true },
      grant: { list: true },
      'web-origin': { list: true },
    },
    parse: (f) => {
      const redirectUris = f.list('redirect-uri');
      const grants = f.list('grant');
      const codeFlow = grants.length === 0 || grants.includes('authorization_code');
      if (codeFlow && redirectUris.length === 0) throw new UsageError('give at least one --redirect-uri');
      return {
        anchor: f.anchor('app'),
        redirectUris,
        postLogoutRedirectUris: f.list('post-logout-redirect-uri'),
        authMethod: f.oneOf('auth-method', OIDC_AUTH_METHODS),
        responseTypes: f.list('response-type'),
        grants,
        webOrigins: f.list('web-origin'),
      };
    },
    run: (ctx, i) => createOidcClient(ctx.db(), i),
  }),
];
