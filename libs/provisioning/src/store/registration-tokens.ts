// Initial access tokens for dynamic client registration (RFC 7591) in oidc_registration_tokens: found by the
// SHA-256 of the token, and spent by one conditional UPDATE (run in the change that inserts the client it pays
// for), so two registrations racing on the last use cannot both succeed.
import type { Db } from '@svc/db';
import type { RegistrationTokensStore } from '../domain/ports';

const VIEW = {
  id: true,
  applicationId: true,
  usesLeft: true,
  expiresAt: true,
  revokedAt: true,
  createdAt: true,
} as const;

export function createRegistrationTokensStore(db: Db): RegistrationTokensStore {
  return {
    async insert(token) {
      const row = await db.oidcRegistrationToken.create({ data: token, select: { id: true } });
      return row.id;
    },
    async findByHash(tokenHash) {
      return (await db.oidcRegistrationToken.findUnique({ where: { tokenHash }, select: VIEW })) ?? undefined;
    },
    async spend(id, now) {
      const spent = await db.$executeRaw`
        UPDATE oidc_registration_tokens SET uses_left = uses_left - 1
        WHERE id = ${id}::uuid AND uses_left > 0 AND revoked_at IS NULL AND expires_at > ${now}`;
      return spent === 1;
    },
    list(applicationId) {
      return db.oidcRegistrationToken.findMany({
        where: applicationId ? { applicationId } : {},
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: VIEW,
      });
    },
    async revoke(id, now) {
      const { count } = await db.oidcRegistrationToken.updateMany({
        where: { id, revokedAt: null },
        data: { revokedAt: now },
      });
      return count === 1;
    },
  };
}
