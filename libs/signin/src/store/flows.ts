// Browser flow state in Redis, short-lived and shared by every replica: one server-side session per browser
// (libs/platform browser sessions: issued by this host only, rotated at every sign-in), holding one record per
// target (an inquiry, an errand, a device authorization: CSRF token, who signed in), the WebAuthn challenge in
// flight, and the emailed code's hash (never the code) with its atomic guess counter.
import type { HeldAuthority } from '@svc/issuance';
import { type BrowserSessionStore, type Clock, createBrowserSessionStore, type Guess } from '@svc/platform';
import type { Redis } from 'ioredis';

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

/** Forgets who signed in on a flow (sign-out, or an authority that moved since). */
export function forgetSignIn(flow: FlowState): void {
  delete flow.accountId;
  delete flow.authTime;
  delete flow.amr;
  delete flow.acr;
  delete flow.authority;
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

const CHALLENGE_TTL_MS = 300_000;

/** Stores a WebAuthn challenge in a session field (a new one replaces the old), valid for five minutes. */
export function putChallengeIn(
  sessions: BrowserSessionStore,
  id: string,
  field: string,
  challenge: Challenge,
  clock: Clock,
): Promise<boolean> {
  const value = JSON.stringify({ ...challenge, expiresAt: clock() + CHALLENGE_TTL_MS });
  return sessions.write(id, { [field]: value });
}

/** Reads and removes a challenge atomically, so it can be answered once, on any replica. */
export async function takeChallengeFrom(
  sessions: BrowserSessionStore,
  id: string,
  field: string,
  clock: Clock,
): Promise<Challenge | undefined> {
  const raw = await sessions.take(id, field);
  if (!raw) return undefined;
  const { expiresAt, ...challenge } = JSON.parse(raw) as Challenge & { expiresAt: number };
  return expiresAt > clock() ? challenge : undefined;
}

export function createFlowStore(redis: Redis, opts: { namespace: string; ttlSeconds: number; clock: Clock }) {
  const sessions: BrowserSessionStore = createBrowserSessionStore(redis, opts);
  return {
    /** A new flow identifier for a browser that has none the host issued. */
    issue: () => sessions.issue(),
    isIssued: (flowId: string) => sessions.isIssued(flowId),
    /** Moves the browser's flow to a fresh identifier (sign-in, sign-up, re-authentication). */
    rotate: (flowId: string) => sessions.rotate(flowId),
    async load(flowId: string, target: string): Promise<FlowState | undefined> {
      const raw = await sessions.read(flowId, target);
      return raw ? (JSON.parse(raw) as FlowState) : undefined;
    },
    /** False when the flow identifier no longer exists (rotated away or expired): nothing is written. */
    save(flowId: string, target: string, state: FlowState): Promise<boolean> {
      return sessions.write(flowId, { [target]: JSON.stringify(state) });
    },
    /** The WebAuthn challenge in flight for a target; a new one replaces the old. */
    putChallenge: (flowId: string, target: string, challenge: Challenge) =>
      putChallengeIn(sessions, flowId, `${target}:challenge`, challenge, opts.clock),
    takeChallenge: (flowId: string, target: string) =>
      takeChallengeFrom(sessions, flowId, `${target}:challenge`, opts.clock),
    /** Keeps a freshly mailed code (replacing any older one) with its guess counter at zero. */
    putCode(flowId: string, target: string, code: PendingCode): Promise<boolean> {
      return sessions.write(flowId, {
        [`${target}:code`]: JSON.stringify(code),
        [`${target}:code-guesses`]: '0',
      });
    },
    /** Counts one guess before any comparison; undefined once the code is gone or out of guesses. */
    async guessCode(
      flowId: string,
      target: string,
      max: number,
    ): Promise<(Guess & { code: PendingCode }) | undefined> {
      const g = await sessions.guess(flowId, `${target}:code`, `${target}:code-guesses`, max);
      return g && { ...g, code: JSON.parse(g.value) as PendingCode };
    },
    /** Consumes the code a guess matched; true for exactly one caller. */
    consumeCode: (flowId: string, target: string, value: string) =>
      sessions.takeIf(flowId, `${target}:code`, value),
    dropCode: (flowId: string, target: string) => sessions.remove(flowId, `${target}:code`),
  };
}
export type FlowStore = ReturnType<typeof createFlowStore>;
