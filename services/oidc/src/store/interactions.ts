// Authorization requests waiting for the person (sign-in, terms, consent): a validated request parked in Redis
// under a random identifier the pages' URL carries, short-lived and shared by every replica. Finishing one takes
// it atomically, so a request answers its client once even when two tabs or two replicas race to finish it.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AuthorizationRequest, Prompt, Scope } from '../domain/authorize-request';
import type { ResponseMode, ResponseType } from '../domain/authorize-terms';

/** What a parked request keeps: the checked request (the client by id only; it is read again on use). */
export interface Interaction {
  clientId: string;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  scopes: Scope[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  prompt: Prompt[];
  maxAge?: number;
  uiLocale?: string;
  /** The person must authenticate in this interaction (prompt=login, max_age passed, or no sign-in). */
  freshLogin: boolean;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

const UID = /^[A-Za-z0-9_-]{43}$/;

export function toInteraction(
  request: AuthorizationRequest,
  freshLogin: boolean,
  createdAt: number,
): Interaction {
  return {
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    responseType: request.responseType,
    responseMode: request.responseMode,
    scopes: request.scopes,
    state: request.state,
    nonce: request.nonce,
    codeChallenge: request.codeChallenge,
    prompt: [...request.prompt],
    maxAge: request.maxAge,
    uiLocale: request.uiLocale,
    freshLogin,
    createdAt,
  };
}

export function createInteractionStore(redis: Redis, opts: { ttlSeconds: number }) {
  const key = (uid: string) => `oidc:interaction:${createHash('sha256').update(uid).digest('hex')}`;
  return {
    /** Parks a request; returns the identifier for the page URL (256 random bits). */
    async park(interaction: Interaction): Promise<string> {
      const uid = randomBytes(32).toString('base64url');
      await redis.set(key(uid), JSON.stringify(interaction), 'EX', opts.ttlSeconds);
      return uid;
    },
    async get(uid: string): Promise<Interaction | undefined> {
      if (!UID.test(uid)) return undefined;
      const raw = await redis.get(key(uid));
      return raw ? (JSON.parse(raw) as Interaction) : undefined;
    },
    /** Removes and returns the request: exactly one caller finishes it. */
    async take(uid: string): Promise<Interaction | undefined> {
      if (!UID.test(uid)) return undefined;
      const raw = await redis.getdel(key(uid));
      return raw ? (JSON.parse(raw) as Interaction) : undefined;
    },
  };
}
export type InteractionStore = ReturnType<typeof createInteractionStore>;
