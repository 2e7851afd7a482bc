// Usernameless passkeys (WebAuthn discoverable credentials) with @simplewebauthn/server: options, then
// verification against the challenge kept in the flow, user verification required.
import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { HeldAuthority } from '@svc/issuance';
import { type Clock, ServiceError } from '@svc/platform';
import type { AccountStore, Challenge, NewPasskey, PasskeyOwner } from './ports';
import { sameText } from './secrets';

/** The WebAuthn relying party: one id for the fleet, this host's origin. */
export interface RelyingParty {
  rpId: string;
  origin: string;
  rpName: string;
}

const TIMEOUT_MS = 120_000;

/**
 * The COSE algorithms a new passkey may use: EdDSA (-8), ES256 (-7), RS256 (-257), pinned rather than left to
 * @simplewebauthn/server's default, which follows the runtime: on Node 24 it adds ML-DSA-44 (-48, experimental in
 * node), whose 2.4 kB signatures the authentication body refuses (and which a replica on an older runtime could not
 * verify), so such a passkey could never sign in. Offered at registration and required of the
 * response.
 */
export const PASSKEY_ALGORITHMS: readonly number[] = [-8, -7, -257];

/**
 * @simplewebauthn/server, loaded on the first ceremony (webauthn.ts): a plain require of a sibling, from source
 * webauthn.ts, in a built host webauthn.js beside main.js.
 */
function webauthn(): typeof import('./webauthn') {
  return require('./webauthn') as typeof import('./webauthn');
}

/** Every way a passkey ceremony can fail is the same opaque refusal. */
export const passkeyRefused = (cause?: unknown) => new ServiceError('AuthenticationNotFound', { cause });

/**
 * True when the client data says the ceremony ran in a cross-origin frame (`crossOrigin: true`) or names a top
 * origin: the pages never embed themselves (frame-ancestors 'none'), so such a response is refused. Unreadable
 * client data counts as cross-origin.
 */
export function isCrossOrigin(clientDataJSON: string): boolean {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    return data.crossOrigin === true || data.topOrigin !== undefined;
  } catch {
    return true;
  }
}

/** What every verification expects: the challenge, this host's origin, the fleet's RP id, user verification. */
interface Expected {
  expectedChallenge: string;
  expectedOrigin: string;
  expectedRPID: string;
  requireUserVerification: true;
}

/** Runs one verification of @simplewebauthn/server; a throw or an unverified result is the opaque refusal. */
async function verifiedCeremony<T extends { verified: boolean }>(
  config: RelyingParty,
  challenge: Challenge,
  verify: (expected: Expected) => Promise<T>,
): Promise<T & { verified: true }> {
  let verified: T;
  try {
    verified = await verify({
      expectedChallenge: challenge.value,
      expectedOrigin: config.origin,
      expectedRPID: config.rpId,
      requireUserVerification: true,
    });
  } catch (err) {
    throw passkeyRefused(err);
  }
  if (!verified.verified) throw passkeyRefused();
  return verified as T & { verified: true };
}

export async function authenticationOptions(config: RelyingParty) {
  // No allowCredentials: the authenticator offers its discoverable credentials (usernameless).
  return webauthn().generateAuthenticationOptions({
    rpID: config.rpId,
    userVerification: 'required',
    timeout: TIMEOUT_MS,
  });
}

export async function verifyAuthentication(
  deps: { config: RelyingParty; accounts: AccountStore; clock: Clock },
  response: AuthenticationResponseJSON,
  challenge: Challenge | undefined,
): Promise<{ accountId: string; deviceBound: boolean; authority: HeldAuthority }> {
  if (challenge?.kind !== 'authenticate') throw passkeyRefused();
  if (isCrossOrigin(response.response.clientDataJSON)) throw passkeyRefused();
  const passkey = await deps.accounts.passkeyByCredentialId(response.id);
  if (!passkey) throw passkeyRefused();
  // A usernameless assertion names its account by the user handle of the discoverable credential: it must be
  // present and be the one registered with this credential.
  if (!response.response.userHandle || !sameText(response.response.userHandle, passkey.userHandle)) {
    throw passkeyRefused();
  }
  const verified = await verifiedCeremony(deps.config, challenge, (expected) =>
    webauthn().verifyAuthenticationResponse({
      ...expected,
      response,
      credential: {
        id: passkey.credentialId,
        publicKey: passkey.publicKey,
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    }),
  );
  await deps.accounts.touchPasskey(
    passkey.id,
    verified.authenticationInfo.newCounter,
    new Date(deps.clock()),
  );
  // Backup-ineligible (`singleDevice`): the key stays on its authenticator (auth-references.ts).
  const deviceBound = verified.authenticationInfo.credentialDeviceType === 'singleDevice';
  return { accountId: passkey.accountId, deviceBound, authority: passkey.authority };
}

export async function registrationOptions(
  config: RelyingParty,
  email: string,
  existing: { credentialId: string; transports: string[] }[],
) {
  const userHandle = randomBytes(32);
  const options = await webauthn().generateRegistrationOptions({
    rpName: config.rpName,
    rpID: config.rpId,
    userName: email,
    userDisplayName: email,
    userID: new Uint8Array(userHandle),
    attestationType: 'none',
    timeout: TIMEOUT_MS,
    supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
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
  deps: { config: RelyingParty; accounts: AccountStore },
  response: RegistrationResponseJSON,
  challenge: Challenge | undefined,
): Promise<NewPasskey> {
  if (challenge?.kind !== 'register' || !challenge.userHandle) throw passkeyRefused();
  if (isCrossOrigin(response.response.clientDataJSON)) throw passkeyRefused();
  const verified = await verifiedCeremony(deps.config, challenge, (expected) =>
    webauthn().verifyRegistrationResponse({
      ...expected,
      response,
      supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
    }),
  );
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
  deps: { config: RelyingParty; accounts: AccountStore },
  response: RegistrationResponseJSON,
  challenge: Challenge | undefined,
  email: string,
  extra: { name?: string; locale: string; beforeCommit?: (owner: PasskeyOwner) => Promise<void> },
): Promise<{ accountId: string; added: boolean; authority: HeldAuthority }> {
  const credential = await verifyNewCredential(deps, response, challenge);
  return deps.accounts.registerPasskey(
    { ...credential, name: extra.name, email, locale: extra.locale },
    extra.beforeCommit,
  );
}
