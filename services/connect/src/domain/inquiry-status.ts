// The inquiry status poll: keyed by the exposure key, authorized by the hidden key, and (for STATUS_POLL
// inquiries) the way the originating client receives the confirmation key once the person has signed in.

import type { Clock } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import { open } from '@svc/token-core';
import type { InquiryRow, InquiryStore } from './ports';
import { findByKeyPair } from './redeem';

export type PublicInquiryState = 'established' | 'realized' | 'redeemed' | 'expired';

export function publicState(inquiry: InquiryRow, now: Date): PublicInquiryState {
  if (inquiry.state === 'REDEEMED') return 'redeemed';
  if (inquiry.expiresAt <= now) return 'expired';
  return inquiry.state === 'REALIZED' ? 'realized' : 'established';
}

/**
 * Whether signing in hands the confirmation key to whoever started the inquiry, wherever that is: STATUS_POLL
 * (the originating client polls for it) or REVEAL shown to be typed into it (no CALLBACK to this browser's
 * application). The device-code phishing shape (RFC 8628 section 5.4), so the sign-in page warns.
 */
export function returnsToOriginator(constraints: {
  returnMethods: readonly string[];
  callbackUrl?: string | null;
}): boolean {
  const { returnMethods, callbackUrl } = constraints;
  if (returnMethods.includes('STATUS_POLL')) return true;
  return returnMethods.includes('REVEAL') && !(returnMethods.includes('CALLBACK') && callbackUrl);
}

export function openConfirmationKey(kek: Kek, inquiry: InquiryRow): string | undefined {
  if (!inquiry.confirmationKeyEnc) return undefined;
  return open(kek, inquiry.confirmationKeyEnc, inquiry.id).toString('utf8');
}

export async function pollInquiry(
  deps: { inquiries: InquiryStore; kek: Kek; clock: Clock },
  exposureKey: string,
  hiddenKey: string,
): Promise<{ state: PublicInquiryState; expiresAt: string; confirmationKey?: string }> {
  const inquiry = await findByKeyPair(deps.inquiries, exposureKey, hiddenKey);
  const state = publicState(inquiry, new Date(deps.clock()));
  const out: { state: PublicInquiryState; expiresAt: string; confirmationKey?: string } = {
    state,
    expiresAt: inquiry.expiresAt.toISOString(),
  };
  if (state === 'realized' && inquiry.constraints.returnMethods.includes('STATUS_POLL')) {
    out.confirmationKey = openConfirmationKey(deps.kek, inquiry);
  }
  return out;
}
