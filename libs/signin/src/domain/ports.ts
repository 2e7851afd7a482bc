// The ports the shared sign-in steps' rules need: the sign-in accounts (passkeys, sign-up, details) and the browser
// flows (state per target, WebAuthn challenge, emailed code), besides the issuance core's. Stores under ../store
// implement them; createSignin binds them once (site.ts) from what each host passes.
import type { HeldAuthority, IssuancePorts } from '@svc/issuance';
import type { Guess } from '@svc/platform';
import type { ClaimKey } from '@svc/token-core';

export interface StoredPasskey {
  id: string;
  credentialId: string;
  accountId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
  userHandle: string;
  /**
   * Its account's authority, read in the same statement as the credential: a removal (which deletes the credential
   * and moves the version in one transaction) is either before this read (no credential) or after it (the
   * recorded version is stale at the next request).
   */
  authority: HeldAuthority;
}

/** A verified WebAuthn credential about to be stored. */
export interface NewPasskey {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  userHandle: string;
  /** Shown on the account page (the browser that made it). */
  name?: string;
}

/** Who is told when a passkey is added to an existing account. */
export interface PasskeyOwner {
  id: string;
  email: string;
  locale: string | null;
}

/** Profile columns an account can fill in on the details page, by claim key (email is the verified address). */
export const PROFILE_COLUMNS = {
  firstName: 'givenName',
  lastName: 'familyName',
  staticAvatar: 'picture',
  animatedAvatar: 'pictureAnimated',
} as const;
export type EditableClaim = keyof typeof PROFILE_COLUMNS;

export interface FlowState {
  csrf: string;
  /** The address a code was sent to (the code itself is a separate single-use record, see putCode). */
  pendingEmail?: string;
  /** An address proven by its code, ready for passkey registration. */
  verifiedEmail?: string;
  /** The account that proved itself in this flow, and when. */
  accountId?: string;
  authTime?: number;
  /** How it proved itself (RFC 8176 `amr`, and `acr` when one applies: domain/auth-references.ts). */
  amr?: string[];
  acr?: string;
  /**
   * The account's authority when it proved itself here (libs/issuance held-authority.ts): the flow is signed out
   * at its next request once the account's authority moved, and what it issues names this version.
   */
  authority?: HeldAuthority;
  /** This flow finished the host's final step (realized the inquiry, completed the errand, decided the device). */
  realized?: boolean;
  /** The host's current choice within this target (device: the authorization the typed user code selected). */
  selected?: string;
  /** A one-time message for the next page view (post, redirect, get). */
  notice?: { key: string; vars?: Record<string, string | number> };
}

/** A WebAuthn challenge in flight and, for registration, the user handle offered. */
export interface Challenge {
  value: string;
  kind: 'authenticate' | 'register';
  userHandle?: string;
}

/** A pending emailed code: the address, the hash of address and code, and when it dies. */
export interface PendingCode {
  email: string;
  codeHash: string;
  expiresAt: number;
}

/** Accounts, passkeys and claim grants as the sign-in steps need them. */
export interface AccountStore {
  byEmail(email: string): Promise<{ id: string } | null>;
  passkeyByCredentialId(credentialId: string): Promise<StoredPasskey | undefined>;
  passkeysOf(
    accountId: string,
  ): Promise<{ credentialId: string; transports: string[]; userHandle: string }[]>;
  touchPasskey(id: string, counter: number, now: Date): Promise<void>;
  /**
   * Registers a passkey for the owner of a verified address, creating the account on first sign-up. Adding a
   * credential to an existing account changes its identity authority (authorityVersion + 1) and runs
   * `beforeCommit` with the owner inside the transaction: if it throws (the owner could not be told), nothing
   * is added.
   */
  registerPasskey(
    input: NewPasskey & { email: string; locale: string },
    beforeCommit?: (owner: PasskeyOwner) => Promise<void>,
  ): Promise<{ accountId: string; added: boolean; authority: HeldAuthority }>;
  /** Records consent decisions and any profile values entered, in one transaction. */
  saveDetails(
    accountId: string,
    applicationId: string,
    decisions: Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>>,
    values: Partial<Record<EditableClaim, string>>,
  ): Promise<void>;
}

/** Browser flows: one server-side session per browser (host-issued ids only), one record per target. */
export interface FlowStore {
  /** A new flow identifier for a browser that has none the host issued. */
  issue(): Promise<string>;
  isIssued(flowId: string): Promise<boolean>;
  /** Moves the browser's flow to a fresh identifier (sign-in, sign-up, re-authentication). */
  rotate(flowId: string): Promise<string | undefined>;
  load(flowId: string, target: string): Promise<FlowState | undefined>;
  /** False when the flow identifier no longer exists (rotated away or expired): nothing is written. */
  save(flowId: string, target: string, state: FlowState): Promise<boolean>;
  /** The WebAuthn challenge in flight for a target; a new one replaces the old. */
  putChallenge(flowId: string, target: string, challenge: Challenge): Promise<boolean>;
  takeChallenge(flowId: string, target: string): Promise<Challenge | undefined>;
  /** Keeps a freshly mailed code (replacing any older one) with its guess counter at zero. */
  putCode(flowId: string, target: string, code: PendingCode): Promise<boolean>;
  /** Counts one guess before any comparison; undefined once the code is gone or out of guesses. */
  guessCode(
    flowId: string,
    target: string,
    max: number,
  ): Promise<(Guess & { code: PendingCode }) | undefined>;
  /** Consumes the code a guess matched; true for exactly one caller. */
  consumeCode(flowId: string, target: string, value: string): Promise<boolean>;
  dropCode(flowId: string, target: string): Promise<void>;
}

/** Everything the sign-in steps' rules reach, bound once per signin instance (createSignin). */
export interface SigninPorts {
  accounts: AccountStore;
  flows: FlowStore;
  /** The issuance core's stores (accounts, agreements, email-domain policy, held authority...). */
  issuance: IssuancePorts;
}

/**
 * The shortest gap between two codes to one address (EMAIL_CODE_RESEND_SECONDS), in Redis so every replica sees
 * it: every code sent marks the address; "Send a new code" claims the address atomically, so of concurrent resends
 * on any replicas at most one goes through, and none within the gap of the code before.
 */
export interface SendGap {
  /** Starts the gap for an address (a code was sent). */
  mark(email: string): Promise<void>;
  /** Claims the address for a new code: undefined when the gap had passed (and it starts again), else ms left. */
  claim(email: string): Promise<number | undefined>;
}
