// Commands for OpenID Connect clients: `oidc-client create` prints {clientId, clientSecret} (the secret once), and
// show, set, rotate-secret (a new secret, once) and delete for a client that exists.

import type { TargetPolicy } from '@svc/events';
import { OIDC_RESPONSE_TYPES } from '@svc/token-core';
import {
  createOidcClient,
  createRegistrationToken,
  deleteOidcClient,
  listRegistrationTokens,
  OIDC_AUTH_METHODS,
  OIDC_GRANTS,
  type OidcClientSettings,
  REGISTRATION_TOKEN_DEFAULTS,
  REGISTRATION_TOKEN_LIMITS,
  revokeRegistrationToken,
  rotateOidcClientSecret,
  setOidcClient,
  showOidcClient,
} from '../index';
import type { AdminContext } from './context';
import { type Flags, UsageError } from './flags';
import { defineCommand, oneFlagCommand } from './registry';

const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;
const clientId = (f: Flags) =>
  f.matching('client', CLIENT_ID, 'a client id (oidc_...) as oidc-client list shows it', { required: true });

/** The lists `oidc-client set` can replace: flag name -> the settings field it fills. */
const SETTABLE = {
  'redirect-uri': 'redirectUris',
  'post-logout-redirect-uri': 'postLogoutRedirectUris',
  'response-type': 'responseTypes',
  grant: 'grants',
  'web-origin': 'webOrigins',
} as const;
type Settable = keyof typeof SETTABLE;
const SETTABLE_FLAGS = Object.keys(SETTABLE) as Settable[];

/** The event targets' policy of the admin's adapter (EVENTS_ALLOW_PRIVATE_TARGETS); the strictest without one. */
const targetPolicyOf = (ctx: AdminContext): TargetPolicy =>
  ctx.eventTargets?.() ?? { production: true, allowPrivate: false };

export const oidcClientCommands = [
  defineCommand({
    name: 'oidc-client create',
    synopsis: `--app A --redirect-uri URI [--redirect-uri URI ...] [--post-logout-redirect-uri URI ...] [--auth-method ${OIDC_AUTH_METHODS.join('|')}] [--response-type TYPE ...] [--grant ${OIDC_GRANTS.join('|')} ...] [--web-origin ORIGIN ...] [--require-par] [--require-dpop] [--backchannel-logout-uri URL]   (the secret is shown once and absent for none; the application needs an OIDC authentication rule; response types default to code, the others opt-in: ${OIDC_RESPONSE_TYPES.join(', ')}; grants default to authorization_code, and a client with only device_code has no redirect URI; web origins may read /token, /userinfo and revocation answers from a browser; --require-par refuses /authorize without a request_uri pushed at /par; --require-dpop: /token issues nothing without a DPoP proof, dpop_bound_access_tokens; --backchannel-logout-uri: where OIDC Back-Channel Logout tokens are posted when a sign-in session ends, https (http only for a loopback host outside production), checked as event subscription URLs are)`,
    http: { method: 'POST', path: '/v1/oidc-clients', created: '/v1/oidc-clients/{clientId}' },
    flags: {
      app: {},
      'redirect-uri': { list: true },
      'post-logout-redirect-uri': { list: true },
      'auth-method': {},
      'response-type': { list: true },
      grant: { list: true },
      'web-origin': { list: true },
      'require-par': { switch: true },
      'require-dpop': { switch: true },
      'backchannel-logout-uri': {},
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
        requirePar: f.switch('require-par'),
        requireDpop: f.switch('require-dpop'),
        backchannelLogoutUri: f.optional('backchannel-logout-uri')?.trim() || undefined,
      };
    },
    run: (ctx, i) => createOidcClient(ctx.provisioning(), i, targetPolicyOf(ctx)),
  }),
  oneFlagCommand({
    name: 'oidc-client show',
    http: { method: 'GET', path: '/v1/oidc-clients/:client' },
    flag: 'client',
    synopsis: '--client ID   (every setting of one client and its status, never the secret)',
    read: clientId,
    run: (ctx, client) => showOidcClient(ctx.provisioning(), client),
  }),
  defineCommand({
    name: 'oidc-client set',
    synopsis: `--client ID [--redirect-uri URI ...] [--post-logout-redirect-uri URI ...] [--response-type TYPE ...] [--grant ${OIDC_GRANTS.join('|')} ...] [--web-origin ORIGIN ...] [--clear ${SETTABLE_FLAGS.join('|')} ...] [--require-par true|false] [--require-dpop true|false] [--backchannel-logout-uri URL|--clear-backchannel-logout-uri]   (each list given replaces the registered one, --clear empties one; --require-par true refuses /authorize without a request_uri pushed at /par; --require-dpop true issues no token without a DPoP proof; the result must be what create accepts; the auth method is fixed at creation; prints {client})`,
    http: { method: 'PATCH', path: '/v1/oidc-clients/:client' },
    flags: {
      client: {},
      ...Object.fromEntries(SETTABLE_FLAGS.map((k) => [k, { list: true }])),
      clear: { list: true },
      'auth-method': {},
      'require-par': {},
      'require-dpop': {},
      'backchannel-logout-uri': {},
      'clear-backchannel-logout-uri': { switch: true },
    },
    parse: (f) => {
      const client = clientId(f);
      if (f.optional('auth-method') !== undefined) {
        throw new UsageError(
          'the auth method is fixed at creation; create a new client (oidc-client create) and delete this one',
        );
      }
      const cleared = f.list('clear').map((name) => {
        if (!(SETTABLE_FLAGS as string[]).includes(name))
          throw new UsageError(`--clear must be one of ${SETTABLE_FLAGS.join(', ')}`);
        return name as Settable;
      });
      const settings: OidcClientSettings = {};
      const requirePar = f.oneOf('require-par', ['true', 'false'] as const);
      if (requirePar !== undefined) settings.requirePar = requirePar === 'true';
      const requireDpop = f.oneOf('require-dpop', ['true', 'false'] as const);
      if (requireDpop !== undefined) settings.requireDpop = requireDpop === 'true';
      const backchannel = f.optional('backchannel-logout-uri')?.trim();
      if (backchannel && f.switch('clear-backchannel-logout-uri'))
        throw new UsageError('give --backchannel-logout-uri or --clear-backchannel-logout-uri, not both');
      if (backchannel) settings.backchannelLogoutUri = backchannel;
      if (f.switch('clear-backchannel-logout-uri')) settings.backchannelLogoutUri = null;
      for (const flag of SETTABLE_FLAGS) {
        const values = f.list(flag);
        if (values.length && cleared.includes(flag))
          throw new UsageError(`give --${flag} or --clear ${flag}, not both`);
        if (values.length || cleared.includes(flag)) settings[SETTABLE[flag]] = values;
      }
      if (Object.keys(settings).length === 0) {
        throw new UsageError(
          `nothing to change: give --${SETTABLE_FLAGS.join(', --')}, --require-par, --require-dpop, --backchannel-logout-uri, --clear-backchannel-logout-uri or --clear (oidc-client show --client ${client} shows the current settings)`,
        );
      }
      return { client, settings };
    },
    run: (ctx, i) => setOidcClient(ctx.provisioning(), i.client, i.settings, targetPolicyOf(ctx)),
  }),
  oneFlagCommand({
    name: 'oidc-client rotate-secret',
    http: { method: 'POST', path: '/v1/oidc-clients/:client/rotate-secret' },
    flag: 'client',
    synopsis:
      "--client ID   (prints {clientId, clientSecret}: the new secret, shown once; the old one stops working within the OIDC host's client cache, about 2 s)",
    read: clientId,
    run: (ctx, client) => rotateOidcClientSecret(ctx.provisioning(), client),
  }),
  oneFlagCommand({
    name: 'oidc-client delete',
    http: { method: 'DELETE', path: '/v1/oidc-clients/:client' },
    flag: 'client',
    synopsis:
      '--client ID   (revokes the client for good: no sign-in, code redemption or refresh through it; it stays listed as REVOKED)',
    read: clientId,
    run: (ctx, client) => deleteOidcClient(ctx.provisioning(), client),
  }),
  defineCommand({
    name: 'oidc-client registration-token create',
    synopsis: `--app A [--uses N] [--expires-in-hours H]   (an initial access token for dynamic client registration, POST /register on the OIDC host with OIDC_REGISTRATION=initial-access-token: prints {registrationToken, token}, the token once; it registers up to N clients of the application (default ${REGISTRATION_TOKEN_DEFAULTS.uses}, at most ${REGISTRATION_TOKEN_LIMITS.uses}) within H hours (default ${REGISTRATION_TOKEN_DEFAULTS.expiresInHours}); the application needs an OIDC authentication rule)`,
    http: {
      method: 'POST',
      path: '/v1/oidc-registration-tokens',
      created: '/v1/oidc-registration-tokens/{id}',
    },
    flags: { app: {}, uses: {}, 'expires-in-hours': {} },
    parse: (f) => ({
      anchor: f.anchor('app'),
      uses: f.int('uses', { min: 1, max: REGISTRATION_TOKEN_LIMITS.uses }),
      expiresInHours: f.int('expires-in-hours', { min: 1, max: REGISTRATION_TOKEN_LIMITS.expiresInHours }),
    }),
    run: (ctx, i) => createRegistrationToken(ctx.provisioning(), i, new Date(ctx.clock())),
  }),
  defineCommand({
    name: 'oidc-client registration-token list',
    synopsis:
      '[--app A]   (initial access tokens: id, application, uses left, expiry, revocation; never a token)',
    http: { method: 'GET', path: '/v1/oidc-registration-tokens', page: 'registrationTokens' },
    flags: { app: {} },
    parse: (f) => ({ app: f.optional('app') === undefined ? undefined : f.anchor('app') }),
    run: (ctx, i) => listRegistrationTokens(ctx.provisioning(), i.app),
  }),
  oneFlagCommand({
    name: 'oidc-client registration-token revoke',
    flag: 'id',
    http: { method: 'POST', path: '/v1/oidc-registration-tokens/:id/revoke' },
    synopsis: '--id ID   (the token registers nothing more; clients it registered stay)',
    run: (ctx, id) => revokeRegistrationToken(ctx.provisioning(), id, new Date(ctx.clock())),
  }),
];
