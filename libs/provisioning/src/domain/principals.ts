// Accounts, agents and automations, their claim grants and basic-terms acceptance, and their credentials.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { changed, created, secretChanged } from '@svc/audit';
import type { Clock } from '@svc/platform';
import { buildClaimView, CLAIM_KEYS, isClaimKey, normalizeRequirements } from '@svc/token-core';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor, ed25519PublicX, uuidOrThrow } from './tenancy';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAccount(
  ports: Uses<'changes'>,
  input: {
    email: string;
    givenName?: string;
    familyName?: string;
    picture?: string;
    pictureAnimated?: string;
  },
) {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254)
    throw new ProvisioningError('--email must be an email address');
  for (const [flag, url] of [
    ['--picture', input.picture],
    ['--picture-animated', input.pictureAnimated],
  ] as const) {
    if (url !== undefined && !/^https:\/\/\S+$/.test(url))
      throw new ProvisioningError(`${flag} must be an HTTPS URL`);
  }
  const account = {
    email,
    givenName: input.givenName ?? null,
    familyName: input.familyName ?? null,
    picture: input.picture ?? null,
    pictureAnimated: input.pictureAnimated ?? null,
  };
  return ports.changes.run(async (tx, audit) => {
    // Two operators racing on one email: the unique index decides, the loser gets the same clear refusal.
    const id = await tx.principals.insertAccount(account);
    if (!id) throw new ProvisioningError('an account with this email already exists');
    audit.record({ action: 'account.create', target: { type: 'account', id }, changes: created(account) });
    return { id };
  });
}

export async function accountById(ports: Uses<'principals'>, id: string) {
  const account = await ports.principals.findAccount(uuidOrThrow(id, 'account'));
  if (!account) throw new ProvisioningError('account not found');
  return account;
}

/** The action an account status change records: `account.suspend` (DISABLED), `account.delete`, `account.activate`. */
const ACCOUNT_STATUS_ACTION = {
  ACTIVE: 'account.activate',
  DISABLED: 'account.suspend',
  DELETED: 'account.delete',
} as const;

export async function setAccountStatus(ports: Uses<'changes'>, id: string, status: string) {
  if (status !== 'ACTIVE' && status !== 'DISABLED' && status !== 'DELETED') {
    throw new ProvisioningError('--status must be ACTIVE, DISABLED or DELETED');
  }
  return ports.changes.run(async (tx, audit) => {
    const before = await accountById(tx, id);
    await tx.principals.setAccountStatus(id, status);
    audit.record({
      action: ACCOUNT_STATUS_ACTION[status],
      target: { type: 'account', id },
      changes: { status: changed(before.status, status) },
    });
    return { id, status };
  });
}

export async function grantClaim(
  ports: Uses<'changes'>,
  accountId: string,
  anchor: string,
  claim: string,
  state: string,
) {
  if (!isClaimKey(claim)) throw new ProvisioningError(`--claim must be one of ${CLAIM_KEYS.join(', ')}`);
  if (state !== 'GRANTED' && state !== 'DENIED')
    throw new ProvisioningError('--state must be GRANTED or DENIED');
  return ports.changes.run(async (tx, audit) => {
    await accountById(tx, accountId);
    const app = await appByAnchor(tx, anchor);
    await tx.principals.putClaimGrant({ accountId, applicationId: app.id, claim, state });
    const grants = await tx.accounts.loadGrants(accountId, app.id);
    audit.record({
      action: 'account.grant_claim',
      target: { type: 'account', id: accountId },
      changes: created({ application: anchor, claim, state }),
    });
    return { claims: buildClaimView(normalizeRequirements(app.claimRequirements), grants) };
  });
}

export async function acceptTerms(ports: Uses<'changes'>, accountId: string) {
  return ports.changes.run(async (tx, audit) => {
    await accountById(tx, accountId);
    const terms = await tx.agreements.currentTerms();
    if (!terms) throw new ProvisioningError('no basic terms have been published');
    await tx.agreements.recordReceipt(accountId, terms, 'ADMIN');
    audit.record({
      action: 'account.accept_terms',
      target: { type: 'account', id: accountId },
      changes: created({ revision: terms.revision, source: 'ADMIN' }),
    });
    return { revision: terms.revision };
  });
}

export async function createWorkload(
  ports: Uses<'changes'>,
  kind: 'AGENT' | 'AUTOMATION',
  accountId: string,
  name: string,
) {
  if (!name.trim()) throw new ProvisioningError('--name must not be empty');
  return ports.changes.run(async (tx, audit) => {
    await accountById(tx, accountId);
    const id = await tx.principals.insertWorkload({ kind, ownerAccountId: accountId, name });
    audit.record({
      action: `${kind.toLowerCase()}.create`,
      target: { type: kind.toLowerCase(), id },
      changes: created({ ownerAccountId: accountId, name }),
    });
    return { id };
  });
}

async function workloadOf(
  ports: Uses<'principals'>,
  accountId: string,
  opts: { agentId?: string; automationId?: string },
) {
  if (opts.agentId && opts.automationId)
    throw new ProvisioningError('give --agent or --automation, not both');
  const id = opts.agentId ?? opts.automationId;
  if (!id) return null;
  const kind = opts.agentId ? 'AGENT' : 'AUTOMATION';
  const w = await workloadById(ports, kind, id);
  if (w.ownerAccountId !== accountId)
    throw new ProvisioningError(`the ${kind.toLowerCase()} belongs to another account`);
  return w;
}

/** The agent or automation `id` of the given kind, or a ProvisioningError naming what is missing. */
async function workloadById(ports: Uses<'principals'>, kind: 'AGENT' | 'AUTOMATION', id: string) {
  const w = await ports.principals.findWorkload(uuidOrThrow(id, kind.toLowerCase()));
  if (!w || w.kind !== kind) throw new ProvisioningError(`${kind.toLowerCase()} not found`);
  return w;
}

/**
 * Revokes an agent or automation: its credentials stop issuing (Layer2Denied) and every session it holds loses its
 * authority at once (refresh AuthorizationArtifactStale, introspection revoked, userinfo, claim-state and /errand
 * refuse its tokens). Idempotent.
 */
export async function revokeWorkload(ports: Uses<'changes'>, kind: 'AGENT' | 'AUTOMATION', id: string) {
  return ports.changes.run(async (tx, audit) => {
    const w = await workloadById(tx, kind, id);
    await tx.principals.revokeWorkload(w.id);
    audit.record({
      action: `${kind.toLowerCase()}.revoke`,
      target: { type: kind.toLowerCase(), id: w.id },
      changes: { status: changed(w.status, 'REVOKED') },
    });
    return { id: w.id, status: 'REVOKED' };
  });
}

/**
 * Moves an active agent or automation to its next generation: the sessions of earlier generations lose their
 * authority, its credentials keep issuing (under the new generation).
 */
export async function regenerateWorkload(ports: Uses<'changes'>, kind: 'AGENT' | 'AUTOMATION', id: string) {
  return ports.changes.run(async (tx, audit) => {
    const w = await workloadById(tx, kind, id);
    const generation = await tx.principals.nextWorkloadGeneration(w.id);
    if (generation === undefined) throw new ProvisioningError(`the ${kind.toLowerCase()} is revoked`);
    audit.record({
      action: `${kind.toLowerCase()}.regenerate`,
      target: { type: kind.toLowerCase(), id: w.id },
      changes: { generation: changed(w.generation, generation) },
    });
    return { id: w.id, generation };
  });
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Where a new credential applies: one application (`anchor`) or every application of one sector (`sectorId`). */
export interface CredentialApplicability {
  anchor?: string;
  sectorId?: string;
}

/**
 * The stored applicability of a new credential: exactly one of an application and a sector. It is fixed here, at
 * creation, and never changes (the database refuses an update of it).
 */
async function applicabilityOf(ports: Uses<'tenancy'>, input: CredentialApplicability) {
  if (input.anchor !== undefined && input.sectorId !== undefined)
    throw new ProvisioningError('give --app or --sector, not both');
  if (input.sectorId !== undefined) {
    const sectorId = uuidOrThrow(input.sectorId, 'sector');
    if (!(await ports.tenancy.sectorExists(sectorId))) throw new ProvisioningError('sector not found');
    return { applicationId: null, sectorId };
  }
  if (input.anchor === undefined) throw new ProvisioningError('give --app or --sector');
  return {
    applicationId: (await appByAnchor(ports, input.anchor)).id,
    sectorId: null,
  };
}

export async function createAccessKey(
  ports: Uses<'changes'>,
  input: CredentialApplicability & { accountId: string; agentId?: string; automationId?: string },
) {
  return ports.changes.run(async (tx, audit) => {
    const applicability = await applicabilityOf(tx, input);
    await accountById(tx, input.accountId);
    const workload = await workloadOf(tx, input.accountId, input);
    const accessKeyIdentifier = `acs_k_${randomUUID()}`;
    const accessKeySecret = `acs_t_${randomBytes(32).toString('hex')}`;
    await tx.principals.insertAccessKey({
      identifier: accessKeyIdentifier,
      secretHash: hashSecret(accessKeySecret),
      ...applicability,
      accountId: input.accountId,
      workloadId: workload?.id ?? null,
    });
    audit.record({
      action: 'access_key.create',
      target: { type: 'access_key', id: accessKeyIdentifier },
      changes: {
        ...created({ ...applicability, accountId: input.accountId, workloadId: workload?.id ?? null }),
        secret: secretChanged(false, true),
      },
    });
    return { accessKeyIdentifier, accessKeySecret };
  });
}

export async function revokeAccessKey(ports: Uses<'changes'>, identifier: string, clock: Clock) {
  return ports.changes.run(async (tx, audit) => {
    // Idempotent: revoking twice keeps the first revocation time.
    if (!(await tx.principals.revokeCredential({ accessKey: identifier }, new Date(clock()))))
      throw new ProvisioningError('access key not found');
    audit.record({
      action: 'access_key.revoke',
      target: { type: 'access_key', id: identifier },
      changes: { status: changed(null, 'REVOKED') },
    });
    return { revoked: true };
  });
}

export async function revokePublicKey(ports: Uses<'changes'>, kid: string, clock: Clock) {
  return ports.changes.run(async (tx, audit) => {
    // Idempotent: revoking twice keeps the first revocation time.
    if (!(await tx.principals.revokeCredential({ publicKey: kid }, new Date(clock()))))
      throw new ProvisioningError('public key not found');
    audit.record({
      action: 'public_key.revoke',
      target: { type: 'public_key', id: kid },
      changes: { status: changed(null, 'REVOKED') },
    });
    return { revoked: true };
  });
}

export async function registerPublicKey(
  ports: Uses<'changes'>,
  input: CredentialApplicability & {
    accountId: string;
    agentId?: string;
    automationId?: string;
    jwk: unknown;
  },
) {
  return ports.changes.run(async (tx, audit) => {
    const applicability = await applicabilityOf(tx, input);
    await accountById(tx, input.accountId);
    const workload = await workloadOf(tx, input.accountId, input);
    const x = ed25519PublicX(input.jwk);
    const kid = `pky_${randomBytes(12).toString('base64url')}`;
    const owner = { ...applicability, accountId: input.accountId, workloadId: workload?.id ?? null };
    await tx.principals.insertPublicKey({ kid, jwk: { kty: 'OKP', crv: 'Ed25519', x }, ...owner });
    audit.record({
      action: 'public_key.register',
      target: { type: 'public_key', id: kid },
      changes: created({ ...owner, x }),
    });
    return { kid };
  });
}
