// Read-only list commands (`org list`, `sector list`, `app list`, `oidc-client list`): what exists, oldest first.
import { listApps, listOidcClients, listOrgs, listSectors } from '../index';
import { defineCommand } from './registry';

export const listingCommands = [
  defineCommand({
    name: 'org list',
    synopsis: '  (every organization: id, name, status)',
    flags: {},
    parse: () => ({}),
    run: (ctx) => listOrgs(ctx.provisioning()),
  }),
  defineCommand({
    name: 'sector list',
    synopsis: '[--org ID]   (sectors, of one organization if given)',
    flags: { org: {} },
    parse: (f) => ({ org: f.id('org') }),
    run: (ctx, i) => listSectors(ctx.provisioning(), i.org),
  }),
  defineCommand({
    name: 'app list',
    synopsis: '[--sector ID]   (applications with their status, of one sector if given)',
    flags: { sector: {} },
    parse: (f) => ({ sector: f.id('sector') }),
    run: (ctx, i) => listApps(ctx.provisioning(), i.sector),
  }),
  defineCommand({
    name: 'oidc-client list',
    synopsis: '[--app A]   (OIDC clients and their settings, never the secret; of one application if given)',
    flags: { app: {} },
    parse: (f) => ({ app: f.optional('app') === undefined ? undefined : f.anchor('app') }),
    run: (ctx, i) => listOidcClients(ctx.provisioning(), i.app),
  }),
];
