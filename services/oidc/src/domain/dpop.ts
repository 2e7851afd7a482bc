// DPoP (RFC 9449) at the OIDC host's client endpoints (/token, /par): the request's proof checked by the one
// verifier (libs/token-core dpop.ts) against this host's own URL for the endpoint, its key's thumbprint handed to the
// grant (the access token's cnf.jkt, a public client's refresh binding). No proof is fine unless the client
// registered dpop_bound_access_tokens (--require-dpop); a bad one is 400 invalid_dpop_proof.
import { DpopProofError, verifyDpopProof } from '@svc/token-core';
import { InvalidDpopProof } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';

/** The RFC 7638 thumbprint of the proof's key, or undefined when the request carried no proof. */
export async function proofKeyAt(
  deps: OidcDomainDeps,
  client: OidcClient,
  proof: string | undefined,
  path: '/token' | '/par',
): Promise<string | undefined> {
  if (proof === undefined) {
    // dpop_bound_access_tokens is about tokens (RFC 9449 5.2): a push without a proof is fine, its code is unbound.
    if (client.requireDpop && path === '/token') {
      throw new InvalidDpopProof('this client must send a DPoP proof');
    }
    return undefined;
  }
  try {
    const verified = await verifyDpopProof({
      proof,
      method: 'POST',
      url: `${deps.oidc.oidcUrl}${path}`,
      now: deps.clock(),
      replay: deps.ports.dpopReplay,
    });
    return verified.jkt;
  } catch (err) {
    if (err instanceof DpopProofError) throw new InvalidDpopProof(err.message);
    throw err;
  }
}
