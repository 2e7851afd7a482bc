// The passkey steps of the sign-in pages, without HTTP: the ceremonies' options with their challenge kept on the
// flow's target, then sign-in (only the target's allowed account, when it names one) and sign-up for the address
// the flow proved by its emailed code (never for a blocked domain). Each returns what the flow records.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '@svc/platform';
import { emailCodeReferences, passkeySignInReferences } from './auth-references';
import {
  authenticationOptions,
  passkeyRefused,
  type RelyingParty,
  registrationOptions,
  verifyAuthentication,
  verifyRegistration,
} from './passkeys';
import type { FlowState, PasskeyOwner, SigninPorts } from './ports';

/** Everything a ceremony works with: the stores, this host's relying party, the clock. */
export interface Ceremony {
  ports: Pick<SigninPorts, 'accounts' | 'flows' | 'issuance'>;
  config: RelyingParty;
  clock: Clock;
}

/** The flow record a ceremony's challenge lives on: the browser's flow and the page's target. */
export interface FlowRef {
  flowId: string;
  targetKey: string;
}

/** What a sign-in or sign-up records on the flow (after it moved to a fresh identifier). */
export type ProvenSignIn = Pick<FlowState, 'accountId' | 'authTime' | 'authority' | 'amr' | 'acr'>;

export async function passkeySignInOptions(c: Ceremony, flow: FlowRef) {
  const options = await authenticationOptions(c.config);
  await c.ports.flows.putChallenge(flow.flowId, flow.targetKey, {
    value: options.challenge,
    kind: 'authenticate',
  });
  return options;
}

/**
 * Verifies a passkey sign-in against the flow's challenge (taken once); a target that names its account accepts
 * only that one ('wrongAccount').
 */
export async function passkeySignIn(
  c: Ceremony,
  flow: FlowRef,
  response: AuthenticationResponseJSON,
  allowedAccountId: string | undefined,
): Promise<ProvenSignIn | 'wrongAccount'> {
  const challenge = await c.ports.flows.takeChallenge(flow.flowId, flow.targetKey);
  const { accountId, deviceBound, authority } = await verifyAuthentication(
    { config: c.config, accounts: c.ports.accounts, clock: c.clock },
    response,
    challenge,
  );
  if (allowedAccountId && allowedAccountId !== accountId) return 'wrongAccount';
  return { accountId, authTime: c.clock(), authority, ...passkeySignInReferences(deviceBound) };
}

/**
 * Registration options for the address the flow proved, excluding its account's passkeys. The domain may have
 * been blocked since the code was mailed: a blocked domain never gets an account.
 */
export async function passkeySignUpOptions(c: Ceremony, flow: FlowRef, email: string | undefined) {
  if (!email || (await c.ports.issuance.accounts.emailDomainPolicyOf(email)) === 'BLOCK')
    throw passkeyRefused();
  const existing = await c.ports.accounts.byEmail(email);
  const creds = existing ? await c.ports.accounts.passkeysOf(existing.id) : [];
  const { options, userHandle } = await registrationOptions(c.config, email, creds);
  await c.ports.flows.putChallenge(flow.flowId, flow.targetKey, {
    value: options.challenge,
    kind: 'register',
    userHandle,
  });
  return options;
}

/**
 * Registers the verified passkey for the proven address (a new account, or a new passkey on its account, whose
 * owner `beforeCommit` tells first: no mail, no passkey).
 */
export async function passkeySignUp(
  c: Ceremony,
  flow: FlowRef,
  response: RegistrationResponseJSON,
  email: string | undefined,
  extra: { name?: string; locale: string; beforeCommit?: (owner: PasskeyOwner) => Promise<void> },
): Promise<ProvenSignIn> {
  if (!email) throw passkeyRefused();
  const challenge = await c.ports.flows.takeChallenge(flow.flowId, flow.targetKey);
  const { accountId, authority } = await verifyRegistration(
    { config: c.config, accounts: c.ports.accounts },
    response,
    challenge,
    email,
    extra,
  );
  return { accountId, authTime: c.clock(), authority, ...emailCodeReferences() };
}
