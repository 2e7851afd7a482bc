// Read-only list commands (`org list`, `sector list`, `app list`, `oidc-client list`): what exists, oldest first.
import { listApps, listOidcClients, listOrgs, listSectors } from '../index';
import { defineCommand } from './registry';

export const listingCommands = [
  defineCommand({
    name: 'org list',
    synopsis: '  (every organization: id, name, status)',
    http: { method: 'GET', path: '/v1/organizations', page: 'organizations' },
    flags: {},
    parse: () => ({}),
    run: (ctx) => listOrgs(ctx.provisioning()),
  }),
  defineCommand({
    name: 'sector list',
    synopsis: '[--org ID]   (sectors, of one organization if given)',
    http: { method: 'GET', path: '/v1/sectors', page: 'sectors' },
    flags: { org: {} },
    parse: (f) => ({ org: f.id('org') }),
    run: (ctx, i) => listSectors(ctx.provisioning(), i.org),
  }),
  defineCommand({
    name: 'app list',
    synopsis: '[--sector ID]   (applications with their status, of one sector if given)',
    http: { method: 'GET', path: '/v1/applications', page: 'applications' },
    flags: { sector: {} },
    parse: (f) => ({ sector: f.id('sector') }),
    run: (ctx, i) => listApps(ctx.provisioning(), i.sector),
  }),
  defineCommand({
    name: 'oidc-client list',
    synopsis: '[--app A]   (OIDC clients and their settings, never the secret; of one application if given)',
    http: { method: 'GET', path: '/v1/oidc-clients', page: 'clients' },
    flags: { app: {} },
    parse: (f) => ({ app: f.optional('app') === undefined ? undefined : f.anchor('app') }),
    run: (ctx, i) => listOidcClients(ctx.provisioning(), i.app),
  }),
];
