// Usernameless passkeys (WebAuthn discoverable credentials) with @simplewebauthn/server: options, then
// verification against the challenge kept in the flow, user verification required.
import { randomBytes } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { ServiceError } from '@svc/platform';
import type { ConnectConfig } from '../config';
import type { AccountStore, NewPasskey, PasskeyOwner } from '../store/accounts';
import type { Challenge } from '../store/flows';

const TIMEOUT_MS = 120_000;

/** Every way a passkey ceremony can fail is the same opaque refusal. */
export const passkeyRefused = (cause?: unknown) => new ServiceError('AuthenticationNotFound', 401, { cause });

export async function authenticationOptions(config: ConnectConfig) {
  // No allowCredentials: the authenticator offers its discoverable credentials (usernameless).
  return generateAuthenticationOptions({
    rpID: config.rpId,
    userVerification: 'required',
    timeout: TIMEOUT_MS,
  });
}

export async function verifyAuthentication(
  deps: { config: ConnectConfig; accounts: AccountStore; now: () => Date },
  response: AuthenticationResponseJSON,
  challenge: Challenge | undefined,
): Promise<{ accountId: string }> {
  if (challenge?.kind !== 'authenticate') throw passkeyRefused();
  const passkey = await deps.accounts.passkeyByCredentialId(response.id);
  if (!passkey) throw passkeyRefused();
  // The authenticator returns the user handle of a discoverable credential: it must be the one registered.
  if (response.response.userHandle !== undefined && response.response.userHandle !== passkey.userHandle) {
    throw passkeyRefused();
  }
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.value,
      expectedOrigin: deps.config.origin,
      expectedRPID: deps.config.rpId,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: passkey.publicKey,
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    });
  } catch (err) {
    throw passkeyRefused(err);
  }
  if (!verified.verified) throw passkeyRefused();
  await deps.accounts.touchPasskey(passkey.id, verified.authenticationInfo.newCounter, deps.now());
  return { accountId: passkey.accountId };
}

export async function registrationOptions(
  config: ConnectConfig,
  email: string,
  existing: { credentialId: string; transports: string[] }[],
) {
  const userHandle = randomBytes(32);
  const options = await generateRegistrationOptions({
    rpName: config.rpName,
    rpID: config.rpId,
    userName: email,
    userDisplayName: email,
    userID: new Uint8Array(userHandle),
    attestationType: 'none',
    timeout: TIMEOUT_MS,
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    authenticatorSelection: {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'required',
    },
  });
  return { options, userHandle: userHandle.toString('base64url') };
}

/** Verifies a registration against its challenge; the credential returned is new (not stored yet). */
export async function verifyNewCredential(
  deps: { config: ConnectConfig; accounts: AccountStore },
  response: RegistrationResponseJSON,
  challenge: Challenge | undefined,
): Promise<NewPasskey> {
  if (challenge?.kind !== 'register' || !challenge.userHandle) throw passkeyRefused();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge.value,
      expectedOrigin: deps.config.origin,
      expectedRPID: deps.config.rpId,
      requireUserVerification: true,
    });
  } catch (err) {
    throw passkeyRefused(err);
  }
  if (!verified.verified) throw passkeyRefused();
  const { credential } = verified.registrationInfo;
  if (await deps.accounts.passkeyByCredentialId(credential.id)) throw passkeyRefused();
  return {
    credentialId: credential.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? response.response.transports ?? [],
    userHandle: challenge.userHandle,
  };
}

/**
 * Sign-up and sign-in by emailed code: stores the verified passkey for the address's account (created on first
 * sign-up). Added to an existing account, `beforeCommit` tells the owner first (see registerPasskey).
 */
export async function verifyRegistration(
  deps: { config: ConnectConfig; accounts: AccountStore },
  response: RegistrationResponseJSON,
  challenge: Challenge | undefined,
  email: string,
  extra: { name?: string; locale: string; beforeCommit?: (owner: PasskeyOwner) => Promise<void> },
): Promise<{ accountId: string; added: boolean }> {
  const credential = await verifyNewCredential(deps, response, challenge);
  return deps.accounts.registerPasskey(
    { ...credential, name: extra.name, email, locale: extra.locale },
    extra.beforeCommit,
  );
}
