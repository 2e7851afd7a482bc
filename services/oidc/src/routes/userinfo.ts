// GET and POST /userinfo, GET /claim-state: Bearer access token in the Authorization header, live data, never
// cached (Cache-Control no-store, Vary Authorization); failures are 401 invalid_token with a Bearer challenge.
import { BEARER_ERRORS, ClaimState, type EndpointDoc, endpoint, UserInfo } from '@svc/platform';
import type { OidcDeps } from '../deps';
import { BEARER_HEADERS } from '../domain/oauth-errors';
import { bearerToken, claimState, userinfo } from '../domain/userinfo';

const USERINFO: EndpointDoc = {
  summary: 'Live profile claims of the access token’s subject.',
  answers: [{ schema: UserInfo, headers: { Vary: 'Authorization' } }],
  auth: 'bearer',
  ...BEARER_ERRORS,
};

export function userinfoEndpoints(deps: OidcDeps) {
  const answerUserinfo = async (req: { headers: { authorization?: string } }) => ({
    json: await userinfo(deps, bearerToken(req.headers.authorization)),
    headers: BEARER_HEADERS,
  });
  return [
    endpoint({
      method: 'GET',
      path: '/userinfo',
      body: { kind: 'none' },
      noStore: true,
      doc: USERINFO,
      handle: answerUserinfo,
    }),
    // POST (OpenID Connect Core 5.3.1) takes the token from the header too; the body is not read.
    endpoint({
      method: 'POST',
      path: '/userinfo',
      body: { kind: 'none' },
      noStore: true,
      doc: USERINFO,
      handle: answerUserinfo,
    }),
    endpoint({
      method: 'GET',
      path: '/claim-state',
      body: { kind: 'none' },
      noStore: true,
      doc: {
        summary: 'Live claim requirements and consent states.',
        answers: [{ schema: ClaimState, headers: { Vary: 'Authorization' } }],
        auth: 'bearer',
        ...BEARER_ERRORS,
      },
      handle: async (req) => ({
        json: await claimState(deps, bearerToken(req.headers.authorization)),
        headers: BEARER_HEADERS,
      }),
    }),
  ];
}
