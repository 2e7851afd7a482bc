// A DPoP-bound access token at a resource (RFC 9449 7): `Authorization: DPoP <token>` with a proof whose ath is the
// token's hash and whose key is the token's cnf.jkt. A bound token presented as Bearer is refused (7.2: the
// binding would be for nothing), and so is an unbound one under the DPoP scheme. The OIDC and session hosts'
// /userinfo and /claim-state share this rule; the SDK's verifier holds applications to the same one.
import { type DpopReplay, verifyDpopProof } from './dpop';

export type AuthorizationScheme = 'Bearer' | 'DPoP';

/** A token68 after `Bearer ` or `DPoP ` (RFC 6750 2.1, RFC 9449 7.1); undefined when the header is neither. */
export function parseAuthorization(
  header: string | undefined,
): { scheme: AuthorizationScheme; token: string } | undefined {
  const m = /^(Bearer|DPoP) +([A-Za-z0-9_.~+/-]+=*)\s*$/i.exec(header ?? '');
  if (!m?.[1] || !m[2]) return undefined;
  return { scheme: m[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: m[2] };
}

/** Why a token and its scheme do not go together. */
export type BindingFailure = 'bound_as_bearer' | 'unbound_as_dpop' | 'key_mismatch';

export class DpopBindingError extends Error {
  constructor(readonly failure: BindingFailure) {
    super(
      failure === 'bound_as_bearer'
        ? 'the access token is DPoP-bound; present it as DPoP with a proof'
        : failure === 'unbound_as_dpop'
          ? 'the access token is not DPoP-bound; present it as Bearer'
          : 'the DPoP proof is not signed by the key the access token is bound to',
    );
    this.name = 'DpopBindingError';
  }
}

export interface PresentedBinding {
  scheme: AuthorizationScheme;
  token: string;
  /** The verified token's cnf.jkt, when it has one. */
  jkt: string | undefined;
  /** The DPoP header as received. */
  proof: string | undefined;
  method: string;
  /** This resource's URL as the host publishes it. */
  url: string;
  now: number;
  replay: DpopReplay;
}

/**
 * Checks the token's binding to the request: throws DpopBindingError, DpopProofError (the proof itself), or the
 * replay port's failure. A Bearer token that is not bound passes untouched (its proof, if any, is ignored).
 */
export async function checkTokenBinding(p: PresentedBinding): Promise<void> {
  if (p.scheme === 'Bearer') {
    if (p.jkt !== undefined) throw new DpopBindingError('bound_as_bearer');
    return;
  }
  if (p.jkt === undefined) throw new DpopBindingError('unbound_as_dpop');
  const { jkt } = await verifyDpopProof({
    proof: p.proof,
    method: p.method,
    url: p.url,
    accessToken: p.token,
    now: p.now,
    replay: p.replay,
  });
  if (jkt !== p.jkt) throw new DpopBindingError('key_mismatch');
}
