// Live claim state of an account for an application: grants, profile values and the five-key view.
import type { Db } from '@svc/db';
import {
  buildClaimView,
  type ClaimGrants,
  type ClaimRequirements,
  type ClaimView,
  isClaimKey,
  type ProfileValues,
} from '@svc/token-core';

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

export async function loadGrants(db: Db, accountId: string, applicationId: string): Promise<ClaimGrants> {
  const rows = await db.claimGrant.findMany({ where: { accountId, applicationId } });
  const grants: ClaimGrants = {};
  for (const r of rows) if (isClaimKey(r.claim)) grants[r.claim] = r.state;
  return grants;
}

export async function loadClaimView(
  db: Db,
  accountId: string,
  applicationId: string,
  requirements: ClaimRequirements,
): Promise<ClaimView> {
  return buildClaimView(requirements, await loadGrants(db, accountId, applicationId));
}
