// Read-only views for operators (`org show`, `sector show`, `account show`, `keys list`): what exists and in which
// state, never a secret; an unknown id or email is an error, so a typo is not mistaken for "nothing there".
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor, uuidOrThrow } from './tenancy';

export async function showOrg(ports: Uses<'inspect'>, id: string) {
  const org = await ports.inspect.organization(uuidOrThrow(id, 'organization'));
  if (!org) throw new ProvisioningError('organization not found');
  return { organization: org };
}

export async function showSector(ports: Uses<'inspect'>, id: string) {
  const sector = await ports.inspect.sector(uuidOrThrow(id, 'sector'));
  if (!sector) throw new ProvisioningError('sector not found');
  const { applications, ...rest } = sector;
  return {
    sector: {
      ...rest,
      applications: applications.map((a) => ({ applicationAnchor: a.anchor, status: a.status })),
    },
  };
}

/** Accounts are stored by their lowercased email (account create), so the lookup lowercases too. */
export async function showAccount(ports: Uses<'inspect'>, email: string) {
  const account = await ports.inspect.accountByEmail(email.trim().toLowerCase());
  if (!account) throw new ProvisioningError('no account has this email');
  const passkeys = await ports.inspect.passkeyLabels(account.id);
  return {
    account: {
      ...account,
      passkeys: {
        count: passkeys.length,
        // A passkey the person never named shows as null, as the account page shows its fallback.
        labels: passkeys.map((p) => ({ name: p.name, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt })),
      },
    },
  };
}

/**
 * `keys list`: one application's signing keys (--app), the platform ID-token keys (--oidc), or every key; each with
 * its scope, status and lifecycle dates, never key material.
 */
export async function listSigningKeys(
  ports: Uses<'inspect' | 'listing' | 'tenancy'>,
  filter: { anchor?: string; oidc?: boolean },
) {
  const app = filter.anchor ? await appByAnchor(ports, filter.anchor) : undefined;
  const rows = await ports.inspect.signingKeys({ applicationId: app?.id, oidc: filter.oidc });
  const ids = [...new Set(rows.flatMap((r) => (r.applicationId ? [r.applicationId] : [])))];
  const anchors = await ports.listing.anchors(ids);
  return {
    keys: rows.map(({ applicationId, ...k }) => ({
      kid: k.kid,
      scope: k.scope,
      applicationAnchor: applicationId ? (anchors.get(applicationId) ?? null) : null,
      status: k.status,
      createdAt: k.createdAt,
      activatesAt: k.activatesAt,
      activatedAt: k.activatedAt,
      retiredAt: k.retiredAt,
      publishUntil: k.publishUntil,
      revokedAt: k.revokedAt,
    })),
  };
}
