// The three direct-issue endpoints: parse and guard the input (zod, formats, rate limits), call one domain
// function, answer `{claims, applicationAnchor, accessToken, refreshToken}` with no-store headers.
import {
  createRateLimiter,
  jsonBody,
  noStore,
  parseWith,
  type RateLimiter,
  ServiceError,
} from '@svc/platform';
import { type Response, Router } from 'express';
import { decodeProtectedHeader } from 'jose';
import type { NativeDeps } from '../deps';
import { checkAccessKeyFormats, proveAccessKey } from '../domain/access-key';
import { type DirectIssueResult, issueForCredential, requireApplication } from '../domain/issue';
import { type PlatformTicketPorts, platformTicketSignIn } from '../domain/platform-ticket';
import { provePublicKeyAssertion } from '../domain/public-key';
import { accessKeyBody, PLATFORM_TICKET_HEX, platformTicketBody, publicKeyBody } from './schemas';

interface Limiters {
  address: RateLimiter;
  credential: RateLimiter;
}

function limitersFor(deps: NativeDeps, endpoint: string): Limiters {
  const rl = deps.config.rateLimit;
  return {
    address: createRateLimiter(deps.redis, {
      keyPrefix: `${rl.prefix}:${endpoint}:addr`,
      points: rl.addressPoints,
      durationSeconds: rl.windowSeconds,
    }),
    credential: createRateLimiter(deps.redis, {
      keyPrefix: `${rl.prefix}:${endpoint}:cred`,
      points: rl.credentialPoints,
      durationSeconds: rl.windowSeconds,
    }),
  };
}

async function consume(limiters: Limiters, address: string, credential: string | undefined): Promise<void> {
  await limiters.address.consume(address);
  if (credential) await limiters.credential.consume(credential);
}

function send(res: Response, result: DirectIssueResult): void {
  noStore(res);
  res.status(200).json({
    claims: result.claims,
    applicationAnchor: result.applicationAnchor,
    accessToken: result.accessToken,
    refreshToken: result.refreshToken,
  });
}

/** The kid named by an (unverified) assertion, only as a rate-limit key; undefined when unreadable. */
function peekKid(authorization: string | undefined): string | undefined {
  const jws = authorization?.trim().split(/\s+/)[1];
  if (!jws || jws.length > 4096) return undefined;
  try {
    const kid = decodeProtectedHeader(jws).kid;
    return typeof kid === 'string' && kid.startsWith('pky_') && kid.length <= 64 ? kid : undefined;
  } catch {
    return undefined;
  }
}

export function directIssueRouter(deps: NativeDeps, ports: PlatformTicketPorts): Router {
  const router = Router();
  const body = jsonBody(deps.config.bodyLimitBytes);
  const accessKeyLimits = limitersFor(deps, 'access-key');
  const publicKeyLimits = limitersFor(deps, 'public-key');

  router.post('/direct-issue/access-key', body, async (req, res) => {
    const input = parseWith(accessKeyBody, req.body);
    checkAccessKeyFormats(input.accessKeyIdentifier, input.accessKeySecret);
    await consume(accessKeyLimits, req.ip ?? 'unknown', input.accessKeyIdentifier);
    const app = await requireApplication(deps, input.applicationAnchor);
    const binding = await proveAccessKey(
      ports.credentials,
      app,
      input.accessKeyIdentifier,
      input.accessKeySecret,
    );
    send(res, await issueForCredential(deps, ports.credentials, app, binding));
  });

  router.post('/direct-issue/public-key', body, async (req, res) => {
    const input = parseWith(publicKeyBody, req.body);
    await consume(publicKeyLimits, req.ip ?? 'unknown', peekKid(req.headers.authorization));
    const app = await requireApplication(deps, input.applicationAnchor);
    const binding = await provePublicKeyAssertion(
      { redis: deps.redis, now: () => deps.issuance.now().getTime() },
      ports.credentials,
      app,
      { authorization: req.headers.authorization, rawBody: req.rawBody ?? Buffer.alloc(0) },
    );
    send(res, await issueForCredential(deps, ports.credentials, app, binding));
  });

  router.post('/direct-issue/platform-ticket', body, async (req, res) => {
    const input = parseWith(platformTicketBody, req.body);
    if (!PLATFORM_TICKET_HEX.test(input.platformTicketHex))
      throw new ServiceError('InvalidPlatformTicket', 400);
    send(res, await platformTicketSignIn(deps, ports, input));
  });

  return router;
}
