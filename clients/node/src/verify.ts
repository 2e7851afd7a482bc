// Access-token verification, the spec's four steps ("Token verification"): the JWK Set from the configured session
// origin (key-set.ts), the token parsed as untrusted with alg, typ, aud, kid and exp checked first, the signature
// under the key of that kid (one refetch when it is unknown), and only then the claims.
import { parseCompact } from './compact.ts';
import {
  checkDpopProof,
  DpopProofFailure,
  type DpopReplayCheck,
  type DpopRequest,
  memoryReplayCheck,
} from './dpop.ts';
import { TokenVerificationError } from './errors.ts';
import type { FetchLike } from './http.ts';
import { KeySet } from './key-set.ts';

export const ACCOUNT_ACCESS_TYP = 'vnd.service.application-access+jwt';
export const WORKLOAD_ACCESS_TYP = 'vnd.service.workload-access+jwt';
export const REFRESH_TYP = 'vnd.service.application-refresh+jwt';

export interface VerifierOptions {
  /** The session host's origin (SESSION_URL): the JWK Set is fetched from here, never from a token. */
  sessionUrl: string;
  /** Your application's anchor: the only `aud` accepted, and the key set fetched. */
  applicationAnchor: string;
  /** The application-token issuer (ISSUER_URL): the only `iss` accepted. */
  issuer: string;
  /** Accept agent and automation (workload) tokens too; their actor is `act.sub` (default false). */
  acceptWorkload?: boolean;
  /** Seconds of clock skew tolerated on `exp` and `nbf` (default 5). */
  clockToleranceSeconds?: number;
  /** Ceiling on how long the key set is cached, at most 300 s (default 300; the host's Cache-Control may say less). */
  maxKeySetAgeSeconds?: number;
  /** Floor between refetches caused by unknown kids (default 1000 ms). */
  minRefetchMs?: number;
  fetch?: FetchLike;
  /** Milliseconds since the epoch (default Date.now); tests pass their own clock. */
  now?: () => number;
  /** Milliseconds before a key-set fetch is abandoned (default 10 000). */
  timeoutMs?: number;
  /**
   * Where DPoP proofs' jti are claimed once (default: this process's memory). With several replicas pass one they
   * share, e.g. a Redis `SET key 1 NX EX ttl` that resolves true when it set the key.
   */
  dpopReplay?: DpopReplayCheck;
}

/** What a verified access token says. `sub` is the pairwise subject: the key to identify the person. */
export interface VerifiedToken {
  /** The person (for a workload token: the owner account). */
  sub: string;
  /** The session, stable across refreshes; not a user id. */
  sid: string;
  jti: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
  kind: 'account' | 'workload';
  /** Workload tokens only: the agent or automation acting for `sub`. */
  act?: { sub: string };
  /** A DPoP-bound token's key (RFC 9449 6.1): verify checked the request's proof against it. */
  cnf?: { jkt: string };
}

export interface VerifyCallOptions {
  /** Overrides the verifier's `acceptWorkload` for this call. */
  acceptWorkload?: boolean;
  /**
   * The request's DPoP proof (RFC 9449 7): its DPoP header, method and URL as reached from outside. A DPoP-bound
   * token (cnf.jkt) is refused without a proof by its key; an unbound token is refused with one (it came under the
   * DPoP scheme, where a bound token belongs).
   */
  dpop?: DpopRequest;
}

const REQUIRED_CLAIMS = ['iss', 'aud', 'sid', 'jti', 'iat', 'exp'] as const;

const refuse = (reason: ConstructorParameters<typeof TokenVerificationError>[0], detail: string) =>
  new TokenVerificationError(reason, detail);

export class Verifier {
  readonly keySet: KeySet;
  private readonly now: () => number;
  private readonly tolerance: number;
  private readonly replay: DpopReplayCheck;

  constructor(private readonly opts: VerifierOptions) {
    if (!opts.sessionUrl || !opts.applicationAnchor || !opts.issuer) {
      throw new TypeError('createVerifier needs sessionUrl, applicationAnchor and issuer');
    }
    this.now = opts.now ?? Date.now;
    this.tolerance = opts.clockToleranceSeconds ?? 5;
    this.replay = opts.dpopReplay ?? memoryReplayCheck(this.now);
    this.keySet = new KeySet({
      sessionUrl: opts.sessionUrl,
      applicationAnchor: opts.applicationAnchor,
      transport: {
        fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
        timeoutMs: opts.timeoutMs ?? 10_000,
      },
      now: this.now,
      minRefetchMs: opts.minRefetchMs,
      maxAgeSeconds: opts.maxKeySetAgeSeconds,
    });
  }

  /** Verifies an access token; throws TokenVerificationError with the reason it was refused. */
  async verify(token: string, call: VerifyCallOptions = {}): Promise<VerifiedToken> {
    if (typeof token !== 'string' || !token) throw refuse('TokenMissing', 'no token');
    // Step 2: untrusted parse; alg RS256, a non-empty kid, the expected typ, aud, and an exp to check.
    const parts = parseCompact(token);
    const acceptWorkload = call.acceptWorkload ?? this.opts.acceptWorkload ?? false;
    const workload = parts.typ === WORKLOAD_ACCESS_TYP;
    if (parts.typ !== ACCOUNT_ACCESS_TYP && !(workload && acceptWorkload)) {
      throw refuse('TokenTypeNotAccepted', 'typ');
    }
    const { payload } = parts;
    if (typeof payload.aud !== 'string') throw refuse('TokenMalformed', 'aud');
    if (payload.aud !== this.opts.applicationAnchor) throw refuse('TokenAudienceInvalid', 'aud');
    if (typeof payload.exp !== 'number') throw refuse('TokenClaimsInvalid', 'exp');
    // Steps 3 and 4: the key of that kid, fetched again once when unknown; nothing is trusted before this.
    let key: Awaited<ReturnType<KeySet['keyFor']>>;
    try {
      key = await this.keySet.keyFor(parts.kid);
    } catch (cause) {
      throw new TokenVerificationError('KeySetUnavailable', 'the JWK Set could not be fetched', { cause });
    }
    if (!key) throw refuse('TokenKeyUnknown', 'kid');
    if (!(await key.verify(parts.signingInput, parts.signature)))
      throw refuse('TokenSignatureInvalid', 'signature');
    const verified = this.claimsOf(payload, workload);
    await this.checkBinding(token, verified, call.dpop);
    return verified;
  }

  /** RFC 9449 7: a bound token only with a proof by its key for this request, an unbound one only without. */
  private async checkBinding(token: string, verified: VerifiedToken, dpop: DpopRequest | undefined) {
    const jkt = verified.cnf?.jkt;
    if (jkt === undefined) {
      if (dpop) throw refuse('DpopBindingInvalid', 'the token is not DPoP-bound');
      return;
    }
    if (!dpop) throw refuse('DpopBindingInvalid', 'the token is DPoP-bound; a proof is required');
    let proven: string;
    try {
      proven = await checkDpopProof(dpop, { accessToken: token, now: this.now(), replay: this.replay });
    } catch (err) {
      if (err instanceof DpopProofFailure) throw refuse('DpopProofInvalid', err.failure);
      throw err;
    }
    if (proven !== jkt) throw refuse('DpopBindingInvalid', 'the proof is not signed by the bound key');
  }

  /**
   * Verifies the token of an `Authorization: Bearer <token>` or `DPoP <token>` header value. Under DPoP the call's
   * `dpop` is the request's proof (a bound token needs one); under Bearer any proof is left aside, so a bound token
   * is refused.
   */
  verifyAuthorization(
    header: string | undefined | null,
    call: VerifyCallOptions = {},
  ): Promise<VerifiedToken> {
    const match = header ? /^(Bearer|DPoP) +([^\s]+) *$/i.exec(header) : null;
    if (!match?.[2]) return Promise.reject(refuse('TokenMissing', 'no bearer token'));
    if (match[1]!.toLowerCase() === 'bearer') return this.verify(match[2], { ...call, dpop: undefined });
    if (!call.dpop) return Promise.reject(refuse('DpopBindingInvalid', 'DPoP scheme without the request'));
    return this.verify(match[2], call);
  }

  private claimsOf(payload: Record<string, unknown>, workload: boolean): VerifiedToken {
    for (const claim of REQUIRED_CLAIMS) {
      if (!Object.hasOwn(payload, claim)) throw refuse('TokenClaimsInvalid', claim);
    }
    if (payload.iss !== this.opts.issuer) throw refuse('TokenClaimsInvalid', 'iss');
    if (typeof payload.iat !== 'number') throw refuse('TokenClaimsInvalid', 'iat');
    const exp = payload.exp as number;
    if (payload.nbf !== undefined && typeof payload.nbf !== 'number')
      throw refuse('TokenClaimsInvalid', 'nbf');
    const now = Math.floor(this.now() / 1000);
    if (typeof payload.nbf === 'number' && payload.nbf > now + this.tolerance) {
      throw refuse('TokenClaimsInvalid', 'nbf');
    }
    if (exp <= now - this.tolerance) throw refuse('TokenExpired', 'exp');
    const { sid, jti, sub, act } = payload as { sid: unknown; jti: unknown; sub: unknown; act: unknown };
    if (typeof sid !== 'string' || typeof jti !== 'string') throw refuse('TokenClaimsInvalid', 'sid/jti');
    if (typeof sub !== 'string' || !sub) throw refuse('TokenClaimsInvalid', 'sub');
    const verified: VerifiedToken = {
      sub,
      sid,
      jti,
      iat: payload.iat,
      exp,
      iss: payload.iss as string,
      aud: payload.aud as string,
      kind: workload ? 'workload' : 'account',
    };
    if (workload) {
      const actor = (act as { sub?: unknown } | null | undefined)?.sub;
      if (typeof actor !== 'string' || !actor) throw refuse('TokenClaimsInvalid', 'act');
      verified.act = { sub: actor };
    } else if ('act' in payload) {
      throw refuse('TokenClaimsInvalid', 'act');
    }
    if ('cnf' in payload) {
      const jkt = (payload.cnf as { jkt?: unknown } | null)?.jkt;
      if (typeof jkt !== 'string' || !jkt) throw refuse('TokenClaimsInvalid', 'cnf');
      verified.cnf = { jkt };
    }
    return verified;
  }
}

/** A verifier for one application: `await verifier.verify(token)` resolves with what the token says. */
export function createVerifier(opts: VerifierOptions): Verifier {
  return new Verifier(opts);
}
