// Live claim state of an account for an application: grants, profile values and the five-key view.
import type { Db } from '@svc/db';
import { buildClaimView, type ClaimRequirements, type ClaimView, type ProfileValues } from '@svc/token-core';
import { loadGrants } from './store/accounts';

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
  db: Db,
  accountId: string,
  applicationId: string,
  requirements: ClaimRequirements,
): Promise<ClaimView> {
  return buildClaimView(requirements, await loadGrants(db, accountId, applicationId));
}
