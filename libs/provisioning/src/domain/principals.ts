// Accounts, agents and automations, their claim grants and basic-terms acceptance, and their credentials.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '@svc/platform';
import { buildClaimView, CLAIM_KEYS, isClaimKey, normalizeRequirements } from '@svc/token-core';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor, ed25519PublicX, uuidOrThrow } from './tenancy';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAccount(
  ports: Uses<'principals'>,
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
  const id = await ports.principals.insertAccount({
    email,
    givenName: input.givenName ?? null,
    familyName: input.familyName ?? null,
    picture: input.picture ?? null,
    pictureAnimated: input.pictureAnimated ?? null,
  });
  if (!id) throw new ProvisioningError('an account with this email already exists');
  return { id };
}

export async function accountById(ports: Uses<'principals'>, id: string) {
  const account = await ports.principals.findAccount(uuidOrThrow(id, 'account'));
  if (!account) throw new ProvisioningError('account not found');
  return account;
}

export async function setAccountStatus(ports: Uses<'principals'>, id: string, status: string) {
  if (status !== 'ACTIVE' && status !== 'DISABLED' && status !== 'DELETED') {
    throw new ProvisioningError('--status must be ACTIVE, DISABLED or DELETED');
  }
  await accountById(ports, id);
  await ports.principals.setAccountStatus(id, status);
  return { id, status };
}

export async function grantClaim(
  ports: Uses<'principals' | 'tenancy' | 'accounts'>,
  accountId: string,
  anchor: string,
  claim: string,
  state: string,
) {
  if (!isClaimKey(claim)) throw new ProvisioningError(`--claim must be one of ${CLAIM_KEYS.join(', ')}`);
  if (state !== 'GRANTED' && state !== 'DENIED')
    throw new ProvisioningError('--state must be GRANTED or DENIED');
  await accountById(ports, accountId);
  const app = await appByAnchor(ports, anchor);
  await ports.principals.putClaimGrant({ accountId, applicationId: app.id, claim, state });
  const grants = await ports.accounts.loadGrants(accountId, app.id);
  return { claims: buildClaimView(normalizeRequirements(app.claimRequirements), grants) };
}

export async function acceptTerms(ports: Uses<'principals' | 'agreements'>, accountId: string) {
  await accountById(ports, accountId);
  const terms = await ports.agreements.currentTerms();
  if (!terms) throw new ProvisioningError('no basic terms have been published');
  await ports.agreements.recordReceipt(accountId, terms, 'ADMIN');
  return { revision: terms.revision };
}

export async function createWorkload(
  ports: Uses<'principals'>,
  kind: 'AGENT' | 'AUTOMATION',
  accountId: string,
  name: string,
) {
  if (!name.trim()) throw new ProvisioningError('--name must not be empty');
  await accountById(ports, accountId);
  return { id: await ports.principals.insertWorkload({ kind, ownerAccountId: accountId, name }) };
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
export async function revokeWorkload(ports: Uses<'principals'>, kind: 'AGENT' | 'AUTOMATION', id: string) {
  const w = await workloadById(ports, kind, id);
  await ports.principals.revokeWorkload(w.id);
  return { id: w.id, status: 'REVOKED' };
}

/**
 * Moves an active agent or automation to its next generation: the sessions of earlier generations lose their
 * authority, its credentials keep issuing (under the new generation).
 */
export async function regenerateWorkload(
  ports: Uses<'principals'>,
  kind: 'AGENT' | 'AUTOMATION',
  id: string,
) {
  const w = await workloadById(ports, kind, id);
  const generation = await ports.principals.nextWorkloadGeneration(w.id);
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
  ports: Uses<'principals' | 'tenancy'>,
  input: CredentialApplicability & { accountId: string; agentId?: string; automationId?: string },
) {
  const applicability = await applicabilityOf(ports, input);
  await accountById(ports, input.accountId);
  const workload = await workloadOf(ports, input.accountId, input);
  const accessKeyIdentifier = `acs_k_${randomUUID()}`;
  const accessKeySecret = `acs_t_${randomBytes(32).toString('hex')}`;
  await ports.principals.insertAccessKey({
    identifier: accessKeyIdentifier,
    secretHash: hashSecret(accessKeySecret),
    ...applicability,
    accountId: input.accountId,
    workloadId: workload?.id ?? null,
  });
  return { accessKeyIdentifier, accessKeySecret };
}

export async function revokeAccessKey(ports: Uses<'principals'>, identifier: string, clock: Clock) {
  // Idempotent: revoking twice keeps the first revocation time.
  if (!(await ports.principals.revokeCredential({ accessKey: identifier }, new Date(clock()))))
    throw new ProvisioningError('access key not found');
  return { revoked: true };
}

export async function revokePublicKey(ports: Uses<'principals'>, kid: string, clock: Clock) {
  // Idempotent: revoking twice keeps the first revocation time.
  if (!(await ports.principals.revokeCredential({ publicKey: kid }, new Date(clock()))))
    throw new ProvisioningError('public key not found');
  return { revoked: true };
}

export async function registerPublicKey(
  ports: Uses<'principals' | 'tenancy'>,
  input: CredentialApplicability & {
    accountId: string;
    agentId?: string;
    automationId?: string;
    jwk: unknown;
  },
) {
  const applicability = await applicabilityOf(ports, input);
  await accountById(ports, input.accountId);
  const workload = await workloadOf(ports, input.accountId, input);
  const x = ed25519PublicX(input.jwk);
  const kid = `pky_${randomBytes(12).toString('base64url')}`;
  await ports.principals.insertPublicKey({
    kid,
    jwk: { kty: 'OKP', crv: 'Ed25519', x },
    ...applicability,
    accountId: input.accountId,
    workloadId: workload?.id ?? null,
  });
  return { kid };
}
