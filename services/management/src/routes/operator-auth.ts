// Who is asking and may they: `Authorization: Bearer mk_...` names a live operator key (else 401), its role must
// allow the route (else 403: reader every GET, editor every change but operator keys and secret resealing, owner
// everything), and each key has its rate limit across replicas (429 with Retry-After).
import { ProblemError, type UncheckedRequest } from '@svc/platform';
import type { OperatorKeyView, OperatorRole } from '@svc/provisioning';
import type { Route } from '@svc/provisioning/commands';
import type { ManagementDeps } from '../deps';

/** The operator key a request acts with, and where it came from (the audit row's actor and request). */
export interface Operator {
  key: OperatorKeyView;
  requestId: string;
  sourceAddress: string;
  userAgent: string | undefined;
}

/** The role a route needs. */
export function roleFor(route: Route): OperatorRole {
  if (route.owner) return 'owner';
  return route.method === 'GET' ? 'reader' : 'editor';
}

const RANK: Record<OperatorRole, number> = { reader: 0, editor: 1, owner: 2 };

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="management"' };

function unauthenticated(detail: string): ProblemError {
  return new ProblemError('unauthenticated', { detail, headers: CHALLENGE });
}

/** The presented secret of `Authorization: Bearer <secret>`, or undefined. */
function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer +(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

export async function authenticateOperator(
  deps: Pick<ManagementDeps, 'operatorKeys' | 'rateLimit'>,
  req: UncheckedRequest,
  route: Route,
  requestId: string,
): Promise<Operator> {
  const secret = bearerOf(req.headers.authorization);
  if (!secret) throw unauthenticated('send an operator key: Authorization: Bearer mk_...');
  const key = await deps.operatorKeys.find(secret);
  if (!key) throw unauthenticated('the operator key is unknown, revoked or expired');
  const needed = roleFor(route);
  if (RANK[key.role] < RANK[needed])
    throw new ProblemError('forbidden', {
      detail: `this route needs the ${needed} role; the key has ${key.role}`,
    });
  await deps.rateLimit.consume(key.id);
  const agent = req.headers['user-agent'];
  return {
    key,
    requestId,
    sourceAddress: req.ip,
    userAgent: typeof agent === 'string' ? agent.slice(0, 512) : undefined,
  };
}
