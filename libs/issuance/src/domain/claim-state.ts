// Live claim state of an account for an application: grants, profile values and the five-key view.
import {
  buildClaimView,
  type ClaimEntry,
  type ClaimKey,
  type ClaimRequirements,
  type ClaimView,
  discloseClaim,
  type ProfileValues,
} from '@svc/token-core';
import type { AccountsPort } from './ports';

export interface AccountProfile {
  id: string;
  status: 'ACTIVE' | 'DISABLED' | 'DELETED';
  email: string | null;
  emailVerified: boolean;
  givenName: string | null;
  familyName: string | null;
  picture: string | null;
  pictureAnimated: string | null;
  authorityVersion: number;
}

export function profileValues(a: AccountProfile): ProfileValues {
  return {
    email: a.email,
    firstName: a.givenName,
    lastName: a.familyName,
    staticAvatar: a.picture,
    animatedAvatar: a.pictureAnimated,
  };
}

export async function loadClaimView(
  accounts: Pick<AccountsPort, 'loadGrants'>,
  accountId: string,
  applicationId: string,
  requirements: ClaimRequirements,
): Promise<ClaimView> {
  return buildClaimView(requirements, await accounts.loadGrants(accountId, applicationId));
}

/**
 * The profile claims a client may see (session /userinfo, OIDC userinfo and ID token): chosen by the granted scopes
 * (`email`: email, email_verified; `profile`: names and pictures), then by the application's claim policy and the
 * person's consent (discloseClaim: synthetic values where the policy says so).
 */
export function profileClaims(
  account: AccountProfile,
  view: ClaimView,
  subject: string,
  scopes: readonly string[],
): Record<string, unknown> {
  const disclose = (key: ClaimKey, real: string | null) =>
    discloseClaim(key, view[key] as ClaimEntry, real, subject);
  const out: Record<string, unknown> = {};
  if (scopes.includes('email')) {
    const email = disclose('email', account.email);
    if (email !== undefined) {
      out.email = email;
      out.email_verified = email === account.email ? account.emailVerified : false;
    }
  }
  if (scopes.includes('profile')) {
    const given = disclose('firstName', account.givenName);
    const family = disclose('lastName', account.familyName);
    if (given !== undefined) out.given_name = given;
    if (family !== undefined) out.family_name = family;
    if (given !== undefined) out.name = family ? `${given} ${family}` : given;
    const picture = disclose('staticAvatar', account.picture);
    if (picture !== undefined) out.picture = picture;
    const animated = disclose('animatedAvatar', account.pictureAnimated);
    if (animated !== undefined) out.picture_animated = animated;
  }
  return out;
}
