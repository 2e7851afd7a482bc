// Commands for accounts (status, claim grants, basic terms), agents, automations and their credentials.

import { CLAIM_KEYS } from '@svc/token-core';
import {
  acceptTerms,
  createAccessKey,
  createAccount,
  createWorkload,
  grantClaim,
  regenerateWorkload,
  registerPublicKey,
  revokeAccessKey,
  revokePublicKey,
  revokeWorkload,
  setAccountStatus,
  showAccount,
} from '../index';
import { type Flags, UsageError } from './flags';
import { defineCommand, oneFlagCommand, type Route } from './registry';

const ACCOUNT_STATUSES = ['ACTIVE', 'DISABLED', 'DELETED'] as const;
const GRANT_STATES = ['GRANTED', 'DENIED'] as const;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const HTTPS_URL = /^https:\/\/\S+$/;
const ACCESS_KEY_ID = /^acs_k_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PUBLIC_KEY_ID = /^pky_[A-Za-z0-9_-]{1,64}$/;

/** The optional workload a credential is bound to: --agent ID or --automation ID, never both. */
function workloadFlags(f: Flags): { agentId?: string; automationId?: string } {
  const agentId = f.id('agent');
  const automationId = f.id('automation');
  if (agentId && automationId) throw new UsageError('give --agent or --automation, not both');
  return { agentId, automationId };
}

/**
 * Where a new credential applies: --app A (one application) or --sector ID (every application of the sector), exactly
 * one of them; fixed at creation.
 */
function applicabilityFlags(f: Flags): { anchor?: string; sectorId?: string } {
  const sectorId = f.id('sector');
  const hasApp = f.optional('app') !== undefined;
  if (hasApp && sectorId) throw new UsageError('give --app or --sector, not both');
  if (!hasApp && !sectorId) throw new UsageError('missing --app or --sector');
  return sectorId ? { sectorId } : { anchor: f.anchor('app') };
}

/** The management API's routes of the agent and automation commands (literal paths, so a grep finds each). */
const WORKLOAD_ROUTES = {
  agent: {
    create: { method: 'POST', path: '/v1/agents', created: '/v1/agents/{id}' },
    revoke: { method: 'POST', path: '/v1/agents/:id/revoke' },
    regenerate: { method: 'POST', path: '/v1/agents/:id/regenerate' },
  },
  automation: {
    create: { method: 'POST', path: '/v1/automations', created: '/v1/automations/{id}' },
    revoke: { method: 'POST', path: '/v1/automations/:id/revoke' },
    regenerate: { method: 'POST', path: '/v1/automations/:id/regenerate' },
  },
} as const satisfies Record<string, Record<string, Route>>;

function workloadCommands(resource: 'agent' | 'automation') {
  const kind = resource === 'agent' ? 'AGENT' : 'AUTOMATION';
  const routes = WORKLOAD_ROUTES[resource];
  return [
    defineCommand({
      name: `${resource} create`,
      http: routes.create,
      synopsis: '--account ID --name N',
      flags: { account: {}, name: {} },
      parse: (f) => ({
        account: f.id('account', { required: true }),
        name: f.text('name', { required: true }),
      }),
      run: (ctx, i) => createWorkload(ctx.provisioning(), kind, i.account, i.name),
    }),
    oneFlagCommand({
      name: `${resource} revoke`,
      http: routes.revoke,
      flag: 'id',
      synopsis: `--id ID   (its credentials stop issuing; its sessions lose their authority at once)`,
      run: (ctx, id) => revokeWorkload(ctx.provisioning(), kind, id),
    }),
    oneFlagCommand({
      name: `${resource} regenerate`,
      http: routes.regenerate,
      flag: 'id',
      synopsis: `--id ID   (next generation: sessions of earlier generations lose their authority)`,
      run: (ctx, id) => regenerateWorkload(ctx.provisioning(), kind, id),
    }),
  ];
}

export const principalCommands = [
  defineCommand({
    name: 'account create',
    synopsis: '--email E [--given-name G] [--family-name F] [--picture URL] [--picture-animated URL]',
    http: { method: 'POST', path: '/v1/accounts', created: '/v1/accounts/by-email/{email}' },
    flags: { email: {}, 'given-name': {}, 'family-name': {}, picture: {}, 'picture-animated': {} },
    parse: (f) => ({
      email: f.matching('email', EMAIL, 'an email address', { required: true }),
      givenName: f.text('given-name'),
      familyName: f.text('family-name'),
      picture: f.matching('picture', HTTPS_URL, 'an HTTPS URL'),
      pictureAnimated: f.matching('picture-animated', HTTPS_URL, 'an HTTPS URL'),
    }),
    run: (ctx, i) => createAccount(ctx.provisioning(), i),
  }),
  defineCommand({
    name: 'account show',
    synopsis:
      '--email E   (id, status, names, created, and its passkeys: how many, their labels and dates; never a credential)',
    http: { method: 'GET', path: '/v1/accounts/by-email/:email' },
    flags: { email: {} },
    parse: (f) => ({ email: f.matching('email', EMAIL, 'an email address', { required: true }) }),
    run: (ctx, i) => showAccount(ctx.provisioning(), i.email),
  }),
  defineCommand({
    name: 'account set-status',
    synopsis: '--account ID --status ACTIVE|DISABLED|DELETED',
    http: { method: 'POST', path: '/v1/accounts/:account/set-status' },
    flags: { account: {}, status: {} },
    parse: (f) => ({
      account: f.id('account', { required: true }),
      status: f.oneOf('status', ACCOUNT_STATUSES, { required: true }),
    }),
    run: (ctx, i) => setAccountStatus(ctx.provisioning(), i.account, i.status),
  }),
  defineCommand({
    name: 'account grant',
    synopsis: `--account ID --app A --claim ${CLAIM_KEYS.join('|')} --state GRANTED|DENIED`,
    http: { method: 'POST', path: '/v1/accounts/:account/grant' },
    flags: { account: {}, app: {}, claim: {}, state: {} },
    parse: (f) => ({
      account: f.id('account', { required: true }),
      app: f.anchor('app'),
      claim: f.oneOf('claim', CLAIM_KEYS, { required: true }),
      state: f.oneOf('state', GRANT_STATES, { required: true }),
    }),
    run: (ctx, i) => grantClaim(ctx.provisioning(), i.account, i.app, i.claim, i.state),
  }),
  oneFlagCommand({
    name: 'account accept-terms',
    http: { method: 'POST', path: '/v1/accounts/:account/accept-terms' },
    flag: 'account',
    synopsis: '--account ID   (records acceptance of the current basic terms)',
    run: (ctx, account) => acceptTerms(ctx.provisioning(), account),
  }),
  ...workloadCommands('agent'),
  ...workloadCommands('automation'),
  defineCommand({
    name: 'access-key create',
    synopsis:
      '--app A | --sector ID  --account ID [--agent ID | --automation ID]   (the secret is shown once; the app or sector is fixed for good)',
    http: { method: 'POST', path: '/v1/access-keys', created: '/v1/access-keys/{accessKeyIdentifier}' },
    flags: { app: {}, sector: {}, account: {}, agent: {}, automation: {} },
    parse: (f) => ({
      ...applicabilityFlags(f),
      accountId: f.id('account', { required: true }),
      ...workloadFlags(f),
    }),
    run: (ctx, i) => createAccessKey(ctx.provisioning(), i),
  }),
  defineCommand({
    name: 'access-key revoke',
    synopsis: '--id IDENTIFIER   (acs_k_...)',
    http: { method: 'POST', path: '/v1/access-keys/:id/revoke' },
    flags: { id: {} },
    parse: (f) => {
      const id = f.required('id');
      if (!ACCESS_KEY_ID.test(id))
        throw new UsageError('--id must be an access-key identifier (acs_k_<uuid v4>)');
      return { id };
    },
    run: (ctx, i) => revokeAccessKey(ctx.provisioning(), i.id, ctx.clock),
  }),
  defineCommand({
    name: 'public-key revoke',
    synopsis: '--kid KID   (pky_...)',
    http: { method: 'POST', path: '/v1/public-keys/:kid/revoke' },
    flags: { kid: {} },
    parse: (f) => ({
      kid: f.matching('kid', PUBLIC_KEY_ID, 'a public-key id (pky_...)', { required: true }),
    }),
    run: (ctx, i) => revokePublicKey(ctx.provisioning(), i.kid, ctx.clock),
  }),
  defineCommand({
    name: 'public-key register',
    synopsis:
      '--app A | --sector ID  --account ID [--agent ID | --automation ID] --jwk-file PATH   (an Ed25519 public JWK; the app or sector is fixed for good)',
    http: { method: 'POST', path: '/v1/public-keys', created: '/v1/public-keys/{kid}' },
    flags: { app: {}, sector: {}, account: {}, agent: {}, automation: {}, 'jwk-file': { json: 'jwk' } },
    parse: (f) => ({
      ...applicabilityFlags(f),
      accountId: f.id('account', { required: true }),
      ...workloadFlags(f),
      jwk: f.jsonFile('jwk-file'),
    }),
    run: (ctx, i) => registerPublicKey(ctx.provisioning(), i),
  }),
];
