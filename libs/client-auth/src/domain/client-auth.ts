// Client-auth JWT (CONTRACTS.md): `Authorization: ClientAuth <jws>` signed by a registered cak_ key of the
// application named in `iss`, bound to the exact request bytes, single use. Every failure is a bare 401.
import { type Clock, ServiceError } from '@svc/platform';
import { TYP } from '@svc/token-core';
import { AssertionError, verifyBoundAssertion } from './bound-assertion';
import type { ClientAuthPorts } from './ports';

export interface ClientAuthResult {
  applicationId: string;
  applicationAnchor: string;
  kid: string;
}

export function clientAuthFailure(cause?: unknown): ServiceError {
  return new ServiceError('ClientAuthDenied', {
    headers: { 'WWW-Authenticate': 'ClientAuth error="invalid_token"' },
    cause,
  });
}

/** Verifies a client-auth JWT through the client-key and replay-set ports; any failure is clientAuthFailure. */
export async function verifyClientAuthWith(
  ports: ClientAuthPorts,
  clock: Clock,
  req: { authorization: string | undefined; rawBody: Buffer; audience: string },
): Promise<ClientAuthResult> {
  try {
    const { kid, key } = await verifyBoundAssertion({
      authorization: req.authorization,
      scheme: 'ClientAuth',
      typ: TYP.clientAuth,
      kidPrefix: 'cak_',
      audience: req.audience,
      rawBody: req.rawBody,
      replay: ports.replay,
      clock,
      replayNamespace: 'client-auth',
      resolveKey: (kid) => ports.clientKeys.findActive(kid),
      issuerMatches: (iss, _kid, key) => iss === key.anchor,
    });
    return { applicationId: key.applicationId, applicationAnchor: key.anchor, kid };
  } catch (err) {
    if (err instanceof AssertionError) throw clientAuthFailure(err);
    throw err;
  }
}
