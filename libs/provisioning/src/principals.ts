// Accounts, agents and automations, their claim grants and basic-terms acceptance, and their credentials.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '@svc/db';
import { createAccountsStore, createAgreementsStore } from '@svc/issuance/stores';
import type { Clock } from '@svc/platform';
import { buildClaimView, CLAIM_KEYS, isClaimKey, normalizeRequirements } from '@svc/token-core';
import { appByAnchor, ed25519PublicX, uuidOrThrow } from './domain/tenancy';
import { ProvisioningError } from './errors';
import {
  findAccount,
  findWorkload,
  insertAccessKey,
  insertAccount,
  insertPublicKey,
  insertWorkload,
  nextWorkloadGeneration,
  putClaimGrant,
  revokeCredential,
  revokeWorkload as revokeWorkloadRow,
  setAccountStatus as setAccountStatusRow,
} from './store/principals';
import { createTenancyStore } from './store/tenancy';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAccount(
  db: Db,
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
  // Two operators racing on one email: the unique index decides, the loser gets the same clear refusal.
  const id = await insertAccount(db, {
    email,
    givenName: input.givenName ?? null,
    familyName: input.familyName ?? null,
    picture: input.picture ?? null,
    pictureAnimated: input.pictureAnimated ?? null,
  });
  if (!id) throw new ProvisioningError('an account with this email already exists');
  return { id };
}

export async function accountById(db: Db, id: string) {
  const account = await findAccount(db, uuidOrThrow(id, 'account'));
  if (!account) throw new ProvisioningError('account not found');
  return account;
}

export async function setAccountStatus(db: Db, id: string, status: string) {
  if (status !== 'ACTIVE' && status !== 'DISABLED' && status !== 'DELETED') {
    throw new ProvisioningError('--status must be ACTIVE, DISABLED or DELETED');
  }
  await accountById(db, id);
  await setAccountStatusRow(db, id, status);
  return { id, status };
}

export async function grantClaim(db: Db, accountId: string, anchor: string, claim: string, state: string) {
  if (!isClaimKey(claim)) throw new ProvisioningError(`--claim must be one of ${CLAIM_KEYS.join(', ')}`);
  if (state !== 'GRANTED' && state !== 'DENIED')
    throw new ProvisioningError('--state must be GRANTED or DENIED');
  await accountById(db, accountId);
  const app = await appByAnchor({ tenancy: createTenancyStore(db) }, anchor);
  await putClaimGrant(db, { accountId, applicationId: app.id, claim, state });
  const grants = await createAccountsStore(db).loadGrants(accountId, app.id);
  return { claims: buildClaimView(normalizeRequirements(app.claimRequirements), grants) };
}

export async function acceptTerms(db: Db, accountId: string) {
  await accountById(db, accountId);
  const terms = await createAgreementsStore(db).currentTerms();
  if (!terms) throw new ProvisioningError('no basic terms have been published');
  await createAgreementsStore(db).recordReceipt(accountId, terms, 'ADMIN');
  return { revision: terms.revision };
}

export async function createWorkload(db: Db, kind: 'AGENT' | 'AUTOMATION', accountId: string, name: string) {
  if (!name.trim()) throw new ProvisioningError('--name must not be empty');
  await accountById(db, accountId);
  return { id: await insertWorkload(db, { kind, ownerAccountId: accountId, name }) };
}

async function workloadOf(db: Db, accountId: string, opts: { agentId?: string; automationId?: string }) {
  if (opts.agentId && opts.automationId)
    throw new ProvisioningError('give --agent or --automation, not both');
  const id = opts.agentId ?? opts.automationId;
  if (!id) return null;
  const kind = opts.agentId ? 'AGENT' : 'AUTOMATION';
  const w = await workloadById(db, kind, id);
  if (w.ownerAccountId !== accountId)
    throw new ProvisioningError(`the ${kind.toLowerCase()} belongs to another account`);
  return w;
}

/** The agent or automation `id` of the given kind, or a ProvisioningError naming what is missing. */
async function workloadById(db: Db, kind: 'AGENT' | 'AUTOMATION', id: string) {
  const w = await findWorkload(db, uuidOrThrow(id, kind.toLowerCase()));
  if (!w || w.kind !== kind) throw new ProvisioningError(`${kind.toLowerCase()} not found`);
  return w;
}

/**
 * Revokes an agent or automation: its credentials stop issuing (Layer2Denied) and every session it holds loses its
 * authority at once (refresh AuthorizationArtifactStale, introspection revoked, userinfo, claim-state and /errand
 * refuse its tokens). Idempotent.
 */
export async function revokeWorkload(db: Db, kind: 'AGENT' | 'AUTOMATION', id: string) {
  const w = await workloadById(db, kind, id);
  await revokeWorkloadRow(db, w.id);
  return { id: w.id, status: 'REVOKED' };
}

/**
 * Moves an active agent or automation to its next generation: the sessions of earlier generations lose their
 * authority, its credentials keep issuing (under the new generation).
 */
export async function regenerateWorkload(db: Db, kind: 'AGENT' | 'AUTOMATION', id: string) {
  const w = await workloadById(db, kind, id);
  const generation = await nextWorkloadGeneration(db, w.id);
  if (generation === undefined) throw new ProvisioningError(`the ${kind.toLowerCase()} is revoked`);
  return { id: w.id, generation };
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
async function applicabilityOf(db: Db, input: CredentialApplicability) {
  if (input.anchor !== undefined && input.sectorId !== undefined)
    throw new ProvisioningError('give --app or --sector, not both');
  if (input.sectorId !== undefined) {
    const sectorId = uuidOrThrow(input.sectorId, 'sector');
    if (!(await createTenancyStore(db).sectorExists(sectorId)))
      throw new ProvisioningError('sector not found');
    return { applicationId: null, sectorId };
  }
  if (input.anchor === undefined) throw new ProvisioningError('give --app or --sector');
  return {
    applicationId: (await appByAnchor({ tenancy: createTenancyStore(db) }, input.anchor)).id,
    sectorId: null,
  };
}

export async function createAccessKey(
  db: Db,
  input: CredentialApplicability & { accountId: string; agentId?: string; automationId?: string },
) {
  const applicability = await applicabilityOf(db, input);
  await accountById(db, input.accountId);
  const workload = await workloadOf(db, input.accountId, input);
  const accessKeyIdentifier = `acs_k_${randomUUID()}`;
  const accessKeySecret = `acs_t_${randomBytes(32).toString('hex')}`;
  await insertAccessKey(db, {
    identifier: accessKeyIdentifier,
    secretHash: hashSecret(accessKeySecret),
    ...applicability,
    accountId: input.accountId,
    workloadId: workload?.id ?? null,
  });
  return { accessKeyIdentifier, accessKeySecret };
}

export async function revokeAccessKey(db: Db, identifier: string, clock: Clock) {
  // Idempotent: revoking twice keeps the first revocation time.
  if (!(await revokeCredential(db, { accessKey: identifier }, new Date(clock()))))
    throw new ProvisioningError('access key not found');
  return { revoked: true };
}

export async function revokePublicKey(db: Db, kid: string, clock: Clock) {
  // Idempotent: revoking twice keeps the first revocation time.
  if (!(await revokeCredential(db, { publicKey: kid }, new Date(clock()))))
    throw new ProvisioningError('public key not found');
  return { revoked: true };
}

export async function registerPublicKey(
  db: Db,
  input: CredentialApplicability & {
    accountId: string;
    agentId?: string;
    automationId?: string;
    jwk: unknown;
  },
) {
  const applicability = await applicabilityOf(db, input);
  await accountById(db, input.accountId);
  const workload = await workloadOf(db, input.accountId, input);
  const x = ed25519PublicX(input.jwk);
  const kid = `pky_${randomBytes(12).toString('base64url')}`;
  await insertPublicKey(db, {
    kid,
    jwk: { kty: 'OKP', crv: 'Ed25519', x },
    ...applicability,
    accountId: input.accountId,
    workloadId: workload?.id ?? null,
  });
  return { kid };
}
