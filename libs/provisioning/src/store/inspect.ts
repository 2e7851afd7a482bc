// Store reads behind the admin CLI's show commands and `keys list`: columns are selected one by one, so a secret,
// a hash or sealed key material added to a table later never reaches an operator's screen by accident.
import type { Db } from '@svc/db';
import type { InspectStore } from '../domain/ports';

const OLDEST_FIRST = { createdAt: 'asc' as const };

export function createInspectStore(db: Db): InspectStore {
  return {
    organization(id) {
      return db.organization.findUnique({
        where: { id },
        select: {
          id: true,
          name: true,
          status: true,
          createdAt: true,
          sectors: { orderBy: OLDEST_FIRST, select: { id: true, name: true, status: true } },
        },
      });
    },

    sector(id) {
      return db.sector.findUnique({
        where: { id },
        select: {
          id: true,
          organizationId: true,
          name: true,
          status: true,
          createdAt: true,
          applications: { orderBy: OLDEST_FIRST, select: { anchor: true, status: true } },
        },
      });
    },

    /** The account's profile and status, never a credential. */
    accountByEmail(email) {
      return db.account.findUnique({
        where: { email },
        select: {
          id: true,
          email: true,
          emailVerified: true,
          givenName: true,
          familyName: true,
          status: true,
          ssoAuthority: true,
          locale: true,
          createdAt: true,
          updatedAt: true,
        },
      });
    },

    /** The labels and dates of an account's passkeys: no credential id, public key, counter or user handle. */
    passkeyLabels(accountId) {
      return db.passkey.findMany({
        where: { accountId },
        orderBy: OLDEST_FIRST,
        select: { name: true, createdAt: true, lastUsedAt: true },
      });
    },

    /** Signing keys' lifecycle, oldest first: never the sealed private key, its KEK id or the public JWK. */
    signingKeys(filter) {
      return db.signingKey.findMany({
        where: filter.oidc
          ? { scope: 'OIDC' }
          : filter.applicationId
            ? { scope: 'APPLICATION', applicationId: filter.applicationId }
            : {},
        orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }],
        select: {
          kid: true,
          scope: true,
          applicationId: true,
          status: true,
          createdAt: true,
          activatesAt: true,
          activatedAt: true,
          retiredAt: true,
          publishUntil: true,
          revokedAt: true,
        },
      });
    },
  };
}
