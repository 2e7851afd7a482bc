// Commands for organizations, sectors and applications (rules, return rules, claims, client keys).

import { ACCESS_TTL, CLAIM_KEYS, REFRESH_TTL, REQUIREMENTS } from '@svc/token-core';
import {
  AUTH_METHODS,
  addClientKey,
  addReturnRule,
  addRule,
  createApp,
  createOrg,
  createSector,
  describeApp,
  RETURN_METHODS,
  removeRule,
  setAppStatus,
  setClaims,
  setOrgStatus,
  setSectorStatus,
  showOrg,
  showSector,
} from '../index';
import { UsageError } from './flags';
import { defineCommand, oneFlagCommand } from './registry';

const ORG_STATUSES = ['ACTIVE', 'DISABLED'] as const;
const APP_STATUSES = ['ACTIVE', 'SUSPENDED', 'DISABLED'] as const;
/** The two kinds of rule an application has: the verb that deletes one, its kind, what it is, the verb that adds one. */
const REMOVABLE_RULES = [
  ['remove-rule', 'rule', 'authentication rule', 'add-rule', '/v1/applications/:app/rules/:rule'],
  [
    'remove-return-rule',
    'return rule',
    'return rule',
    'add-return-rule',
    '/v1/applications/:app/return-rules/:rule',
  ],
] as const;

export const tenancyCommands = [
  defineCommand({
    name: 'org create',
    synopsis: '--name N',
    http: { method: 'POST', path: '/v1/organizations', created: '/v1/organizations/{id}' },
    flags: { name: {} },
    parse: (f) => ({ name: f.text('name', { required: true }) }),
    run: (ctx, i) => createOrg(ctx.provisioning(), i.name),
  }),
  defineCommand({
    name: 'org set-status',
    synopsis: '--org ID --status ACTIVE|DISABLED',
    http: { method: 'PATCH', path: '/v1/organizations/:org' },
    flags: { org: {}, status: {} },
    parse: (f) => ({
      org: f.id('org', { required: true }),
      status: f.oneOf('status', ORG_STATUSES, { required: true }),
    }),
    run: (ctx, i) => setOrgStatus(ctx.provisioning(), i.org, i.status),
  }),
  oneFlagCommand({
    name: 'org show',
    http: { method: 'GET', path: '/v1/organizations/:org' },
    flag: 'org',
    synopsis: '--org ID   (name, status, created, and its sectors)',
    run: (ctx, org) => showOrg(ctx.provisioning(), org),
  }),
  defineCommand({
    name: 'sector create',
    synopsis: '--org ID --name N',
    http: { method: 'POST', path: '/v1/sectors', created: '/v1/sectors/{id}' },
    flags: { org: {}, name: {} },
    parse: (f) => ({ org: f.id('org', { required: true }), name: f.text('name', { required: true }) }),
    run: (ctx, i) => createSector(ctx.provisioning(), i.org, i.name),
  }),
  defineCommand({
    name: 'sector set-status',
    synopsis: '--sector ID --status ACTIVE|DISABLED',
    http: { method: 'PATCH', path: '/v1/sectors/:sector' },
    flags: { sector: {}, status: {} },
    parse: (f) => ({
      sector: f.id('sector', { required: true }),
      status: f.oneOf('status', ORG_STATUSES, { required: true }),
    }),
    run: (ctx, i) => setSectorStatus(ctx.provisioning(), i.sector, i.status),
  }),
  oneFlagCommand({
    name: 'sector show',
    http: { method: 'GET', path: '/v1/sectors/:sector' },
    flag: 'sector',
    synopsis: '--sector ID   (its organization, name, status, created, and its applications)',
    run: (ctx, sector) => showSector(ctx.provisioning(), sector),
  }),
  defineCommand({
    name: 'app create',
    synopsis:
      '--sector ID --anchor A --name en-US=TEXT [--name zh-CN=TEXT ...] [--default-locale en-US] [--callback-domain HOST ...]',
    http: { method: 'POST', path: '/v1/applications', created: '/v1/applications/{applicationAnchor}' },
    flags: {
      sector: {},
      anchor: {},
      name: { list: true },
      'default-locale': {},
      'callback-domain': { list: true },
    },
    parse: (f) => {
      const input = {
        sectorId: f.id('sector', { required: true }),
        anchor: f.anchor('anchor'),
        names: f.localized('name'),
        defaultLocale: f.locale('default-locale'),
        callbackDomains: f.list('callback-domain'),
      };
      if (!input.names['en-US'])
        throw new UsageError('missing --name en-US=TEXT (the en-US name is required)');
      if (input.defaultLocale && !input.names[input.defaultLocale]) {
        throw new UsageError(
          `--default-locale ${input.defaultLocale} needs a --name ${input.defaultLocale}=TEXT`,
        );
      }
      return input;
    },
    run: (ctx, i) => createApp(ctx.provisioning(), ctx.kek(), i, ctx.clock),
  }),
  defineCommand({
    name: 'app set-status',
    synopsis: '--app A --status ACTIVE|SUSPENDED|DISABLED',
    http: { method: 'PATCH', path: '/v1/applications/:app/status' },
    flags: { app: {}, status: {} },
    parse: (f) => ({ app: f.anchor('app'), status: f.oneOf('status', APP_STATUSES, { required: true }) }),
    run: (ctx, i) => setAppStatus(ctx.provisioning(), i.app, i.status),
  }),
  defineCommand({
    name: 'app add-rule',
    synopsis: `--method ${AUTH_METHODS.join('|')} --app A [--platform-app-id N ...] [--access-ttl S] [--refresh-ttl S]`,
    http: {
      method: 'POST',
      path: '/v1/applications/:app/rules',
      created: '/v1/applications/{app}/rules/{ruleId}',
    },
    flags: { app: {}, method: {}, 'platform-app-id': { list: true }, 'access-ttl': {}, 'refresh-ttl': {} },
    parse: (f) => {
      const input = {
        app: f.anchor('app'),
        method: f.oneOf('method', AUTH_METHODS, { required: true }),
        platformAppIds: f.bigints('platform-app-id'),
        accessTtl: f.int('access-ttl', ACCESS_TTL),
        refreshTtl: f.int('refresh-ttl', REFRESH_TTL),
      };
      if (input.method === 'PLATFORM_TICKET' && input.platformAppIds.length === 0) {
        throw new UsageError('--method PLATFORM_TICKET needs at least one --platform-app-id');
      }
      if (input.method !== 'PLATFORM_TICKET' && input.platformAppIds.length > 0) {
        throw new UsageError('--platform-app-id applies to --method PLATFORM_TICKET only');
      }
      return input;
    },
    run: (ctx, { app, ...rule }) => addRule(ctx.provisioning(), app, rule),
  }),
  defineCommand({
    name: 'app add-return-rule',
    synopsis: `--app A --method ${RETURN_METHODS.join('|')}`,
    http: {
      method: 'POST',
      path: '/v1/applications/:app/return-rules',
      created: '/v1/applications/{app}/return-rules/{ruleId}',
    },
    flags: { app: {}, method: {} },
    parse: (f) => ({ app: f.anchor('app'), method: f.oneOf('method', RETURN_METHODS, { required: true }) }),
    run: (ctx, i) => addReturnRule(ctx.provisioning(), i.app, i.method),
  }),
  ...REMOVABLE_RULES.map(([verb, kind, what, addedBy, path]) =>
    defineCommand({
      name: `app ${verb}`,
      http: { method: 'DELETE', path },
      synopsis: `--app A --rule ID   (deletes one ${what}, by the ruleId ${addedBy} printed or app show lists)`,
      flags: { app: {}, rule: {} },
      parse: (f) => ({ app: f.anchor('app'), rule: f.id('rule', { required: true }) }),
      run: (ctx, i) => removeRule(ctx.provisioning(), i.app, i.rule, kind),
    }),
  ),
  defineCommand({
    name: 'app set-claims',
    synopsis: `--app A ${CLAIM_KEYS.map((k) => `[--${k} R]`).join(' ')}   (R: ${REQUIREMENTS.join('|')})`,
    http: { method: 'PATCH', path: '/v1/applications/:app/claims' },
    flags: Object.fromEntries([['app', {}], ...CLAIM_KEYS.map((k) => [k, {}])]),
    parse: (f) => {
      const changes: Record<string, string> = {};
      for (const key of CLAIM_KEYS) {
        const r = f.oneOf(key, REQUIREMENTS);
        if (r) changes[key] = r;
      }
      return { app: f.anchor('app'), changes };
    },
    run: (ctx, i) => setClaims(ctx.provisioning(), i.app, i.changes),
  }),
  defineCommand({
    name: 'app add-client-key',
    synopsis: '--app A --jwk-file PATH   (an Ed25519 public JWK)',
    http: {
      method: 'POST',
      path: '/v1/applications/:app/client-keys',
      created: '/v1/applications/{app}/client-keys/{kid}',
    },
    flags: { app: {}, 'jwk-file': { json: 'jwk' } },
    parse: (f) => ({ app: f.anchor('app'), jwk: f.jsonFile('jwk-file') }),
    run: (ctx, i) => addClientKey(ctx.provisioning(), i.app, i.jwk),
  }),
  defineCommand({
    name: 'app show',
    synopsis: '--app A   (status, names, rules, claims, client keys, published signing kids)',
    http: { method: 'GET', path: '/v1/applications/:app' },
    flags: { app: {} },
    parse: (f) => ({ app: f.anchor('app') }),
    run: async (ctx, i) => ({ application: await describeApp(ctx.provisioning(), i.app, ctx.clock) }),
  }),
];
