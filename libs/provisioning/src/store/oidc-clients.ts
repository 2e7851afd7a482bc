// Store of one OIDC client for the admin CLI's show, set, rotate-secret and delete: reads never select the secret
// hash, and every change applies to an ACTIVE client only, under its row lock, so a deleted client stays deleted.
import type { Db } from '@svc/db';
import type { OidcClientsStore } from '../domain/ports';

/** Every column an operator may see, field by field: a new secret column never leaks (show and list alike). */
export const CLIENT_VIEW = {
  clientId: true,
  applicationId: true,
  authMethod: true,
  status: true,
  redirectUris: true,
  postLogoutRedirectUris: true,
  responseTypes: true,
  grantTypes: true,
  webOrigins: true,
  requirePar: true,
  requireDpop: true,
  backchannelLogoutUri: true,
  clientName: true,
  createdAt: true,
} as const;

export function createOidcClientsStore(db: Db): OidcClientsStore {
  return {
    read(clientId) {
      return db.oidcClient.findUnique({ where: { clientId }, select: CLIENT_VIEW });
    },
    changeActive(clientId, change) {
      return db.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM oidc_clients WHERE client_id = ${clientId} AND status = 'ACTIVE' FOR UPDATE`;
        if (locked.length === 0) return undefined;
        const current = await tx.oidcClient.findUniqueOrThrow({ where: { clientId }, select: CLIENT_VIEW });
        return tx.oidcClient.update({ where: { clientId }, data: change(current), select: CLIENT_VIEW });
      });
    },
  };
}
