// Express (and Connect-style) middleware over a Verifier: a request with a valid `Authorization: Bearer` access
// token gets `req.auth`; any other answers 401 `{reason}` with a Bearer challenge (503 when the key set cannot be
// had). Typed structurally, so the package does not depend on Express.
import { TokenVerificationError } from './errors.ts';
import type { VerifiedToken, Verifier, VerifyCallOptions } from './verify.ts';

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  method?: string;
  originalUrl?: string;
  url?: string;
  auth?: VerifiedToken;
}

interface ResponseLike {
  status(code: number): ResponseLike;
  set(name: string, value: string): ResponseLike;
  json(body: unknown): unknown;
}

type Next = (err?: unknown) => void;

export interface RequireAuthOptions extends VerifyCallOptions {
  /** Sent as the challenge's realm (default `api`). */
  realm?: string;
  /**
   * Your API's origin as clients reach it (`https://api.example`): with it, `Authorization: DPoP <token>` is taken
   * with the request's DPoP proof (htu is this origin and the request's path). Without it DPoP-bound tokens are
   * refused.
   */
  publicOrigin?: string;
}

/** `app.get('/api/x', requireAuth(verifier), (req, res) => res.json({ sub: req.auth.sub }))`. */
export function requireAuth(verifier: Verifier, opts: RequireAuthOptions = {}) {
  const realm = opts.realm ?? 'api';
  return (req: RequestLike, res: ResponseLike, next: Next): void => {
    const header = req.headers.authorization;
    const proof = req.headers.dpop;
    const dpop =
      opts.publicOrigin && req.method
        ? {
            proof: Array.isArray(proof) ? proof.join(', ') : proof,
            method: req.method,
            url: `${opts.publicOrigin.replace(/\/$/, '')}${req.originalUrl ?? req.url ?? '/'}`,
          }
        : undefined;
    verifier.verifyAuthorization(typeof header === 'string' ? header : undefined, { ...opts, dpop }).then(
      (auth) => {
        req.auth = auth;
        next();
      },
      (err: unknown) => {
        if (!(err instanceof TokenVerificationError)) return next(err);
        const unavailable = err.reason === 'KeySetUnavailable';
        res
          .status(unavailable ? 503 : 401)
          .set('www-authenticate', `Bearer realm="${realm}"${unavailable ? '' : ', error="invalid_token"'}`)
          .set('cache-control', 'no-store')
          .json({ reason: err.reason });
      },
    );
  };
}

declare global {
  namespace Express {
    interface Request {
      /** Set by requireAuth: the verified access token. */
      auth?: VerifiedToken;
    }
  }
}
