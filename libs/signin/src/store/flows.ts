// Browser flow state in Redis, short-lived and shared by every replica: one server-side session per browser
// (libs/platform browser sessions: issued by this host only, rotated at every sign-in), holding one record per
// target (an inquiry, an errand, a device authorization: CSRF token, who signed in), the WebAuthn challenge in
// flight, and the emailed code's hash (never the code) with its atomic guess counter.
import { type BrowserSessionStore, type Clock, createBrowserSessionStore, type Guess } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { Challenge, FlowState, FlowStore, PendingCode } from '../domain/ports';

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

export function createFlowStore(
  redis: Redis,
  opts: { namespace: string; ttlSeconds: number; clock: Clock },
): FlowStore {
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
