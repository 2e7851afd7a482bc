// Commands for the management API's operator keys: create (the secret printed once), list, revoke.
import { createOperatorKey, listOperatorKeys, OPERATOR_ROLES, revokeOperatorKey } from '../index';
import { defineCommand, oneFlagCommand } from './registry';

export const operatorKeyCommands = [
  defineCommand({
    name: 'operator-key create',
    synopsis: `--name N --role ${OPERATOR_ROLES.join('|')} [--expires-in-days N]   (prints the secret mk_... once; only its hash is stored)`,
    http: { method: 'POST', path: '/v1/operator-keys', created: '/v1/operator-keys/{id}', owner: true },
    flags: { name: {}, role: {}, 'expires-in-days': {} },
    parse: (f) => ({
      name: f.text('name', { required: true }),
      role: f.oneOf('role', OPERATOR_ROLES, { required: true }),
      expiresInDays: f.int('expires-in-days', { min: 1, max: 3650 }),
    }),
    run: (ctx, i) => createOperatorKey(ctx.provisioning(), i, ctx.clock),
  }),
  defineCommand({
    name: 'operator-key list',
    synopsis: '  (every operator key: id, name, role, created, expires, revoked; never a secret)',
    http: { method: 'GET', path: '/v1/operator-keys', page: 'operatorKeys', owner: true },
    flags: {},
    parse: () => ({}),
    run: (ctx) => listOperatorKeys(ctx.provisioning()),
  }),
  oneFlagCommand({
    name: 'operator-key revoke',
    flag: 'id',
    synopsis: '--id ID   (the key stops working within about a second on every management replica)',
    http: { method: 'POST', path: '/v1/operator-keys/:id/revoke', owner: true },
    run: (ctx, id) => revokeOperatorKey(ctx.provisioning(), id, ctx.clock),
  }),
];
