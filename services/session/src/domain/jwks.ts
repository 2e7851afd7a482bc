// Session GET /applications/{anchor}/jwks.json: the published JWK Set of the application an anchor names.
import { ServiceError } from '@svc/platform';
import type { SessionDomainDeps } from './ports';

const ANCHOR = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** The JWK Set's serialized body; an anchor that cannot be one, or names no application, is ApplicationNotFound. */
export async function applicationJwks(
  deps: Pick<SessionDomainDeps, 'apps' | 'keyRing'>,
  anchor: string,
): Promise<string> {
  if (anchor.length < 3 || anchor.length > 64 || !ANCHOR.test(anchor)) {
    throw new ServiceError('ApplicationNotFound');
  }
  const app = await deps.apps.get(anchor);
  if (!app) throw new ServiceError('ApplicationNotFound');
  return (await deps.keyRing.jwks(app.id)).body;
}
