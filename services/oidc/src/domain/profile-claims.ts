// The profile claims an OIDC client may see (userinfo, and the ID token of response_type=id_token): chosen by the
// granted scopes (`email`: email, email_verified; `profile`: names and pictures), then by the application's claim
// policy and the person's consent (discloseClaim: synthetic values where the policy says so).
import type { AccountProfile } from '@svc/issuance';
import { type ClaimKey, type ClaimView, discloseClaim } from '@svc/token-core';

export function profileClaims(
  account: AccountProfile,
  view: ClaimView,
  subject: string,
  scopes: readonly string[],
): Record<string, unknown> {
  const disclose = (key: ClaimKey, real: string | null) => discloseClaim(key, view[key], real, subject);
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
