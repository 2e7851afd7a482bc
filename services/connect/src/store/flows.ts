// Browser flow state in Redis, short-lived and shared by every replica: one record per (browser, inquiry or
// errand), found by the SHA-256 of the HttpOnly flow cookie. Holds the CSRF token, WebAuthn challenges, the
// emailed code's hash (never the code) and who signed in.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sha256Hex } from '../domain/keys';

export interface FlowState {
  csrf: string;
  /** The address a sign-up code was sent to, the code's hash and the wrong guesses so far. */
  pendingEmail?: { email: string; codeHash: string; attempts: number; expiresAt: number };
  /** An address proven by its code, ready for passkey registration. */
  verifiedEmail?: string;
  /** The account that proved itself in this flow, and when. */
  accountId?: string;
  authTime?: number;
  /** This flow realized the inquiry (or completed the errand), so it may show the final step. */
  realized?: boolean;
  /** A one-time message for the next page view (post, redirect, get). */
  notice?: { key: string; vars?: Record<string, string | number> };
}

/** A WebAuthn challenge in flight and, for registration, the user handle offered. */
export interface Challenge {
  value: string;
  kind: 'authenticate' | 'register';
  userHandle?: string;
}

export function newFlowId(): string {
  return randomBytes(32).toString('base64url');
}

export function createFlowStore(redis: Redis, ttlSeconds: number) {
  const key = (flowId: string, target: string) => `connect:flow:${sha256Hex(flowId)}:${target}`;
  return {
    async load(flowId: string, target: string): Promise<FlowState | undefined> {
      const raw = await redis.get(key(flowId, target));
      return raw ? (JSON.parse(raw) as FlowState) : undefined;
    },
    async save(flowId: string, target: string, state: FlowState): Promise<void> {
      await redis.set(key(flowId, target), JSON.stringify(state), 'EX', ttlSeconds);
    },
    /** Stores the WebAuthn challenge in flight; a new one replaces the old. */
    async putChallenge(flowId: string, target: string, challenge: Challenge): Promise<void> {
      await redis.set(`${key(flowId, target)}:challenge`, JSON.stringify(challenge), 'EX', 300);
    },
    /** Reads and removes the challenge atomically (GETDEL), so it can be answered once, on any replica. */
    async takeChallenge(flowId: string, target: string): Promise<Challenge | undefined> {
      const raw = await redis.getdel(`${key(flowId, target)}:challenge`);
      return raw ? (JSON.parse(raw) as Challenge) : undefined;
    },
  };
}
export type FlowStore = ReturnType<typeof createFlowStore>;
