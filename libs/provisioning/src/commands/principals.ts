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
import { defineCommand, oneFlagCommand } from './registry';

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

function workloadCommands(resource: 'agent' | 'automation') {
  const kind = resource === 'agent' ? 'AGENT' : 'AUTOMATION';
  return [
    defineCommand({
      name: `${resource} create`,
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
      flag: 'id',
      synopsis: `--id ID   (its credentials stop issuing; its sessions lose their authority at once)`,
      run: (ctx, id) => revokeWorkload(ctx.provisioning(), kind, id),
    }),
    oneFlagCommand({
      name: `${resource} regenerate`,
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
    flags: { email: {} },
    parse: (f) => ({ email: f.matching('email', EMAIL, 'an email address', { required: true }) }),
    run: (ctx, i) => showAccount(ctx.provisioning(), i.email),
  }),
  defineCommand({
    name: 'account set-status',
    synopsis: '--account ID --status ACTIVE|DISABLED|DELETED',
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
    flags: { app: {}, sector: {}, account: {}, agent: {}, automation: {}, 'jwk-file': {} },
    parse: (f) => ({
      ...applicabilityFlags(f),
      accountId: f.id('account', { required: true }),
      ...workloadFlags(f),
      jwk: f.jsonFile('jwk-file'),
    }),
    run: (ctx, i) => registerPublicKey(ctx.provisioning(), i),
  }),
];
