// Realization: the person behind an inquiry has signed in and passed every page step; the inquiry moves
// ESTABLISHED -> REALIZED once, recording the account, its authority version and a fresh confirmation key.
import type { Clock } from '@svc/platform';
import { type Kek, seal } from '@svc/token-core';
import { CONNECT_AUTH_METHOD } from './establish';
import { KEY_PREFIX, newKey, sha256Hex } from './keys';
import type { InquiryStore } from './ports';

export async function realizeInquiry(
  deps: { inquiries: InquiryStore; kek: Kek; clock: Clock },
  inquiryId: string,
  account: { id: string; authorityVersion: number },
  authTime: Date,
): Promise<string | undefined> {
  const confirmationKey = newKey(KEY_PREFIX.confirmation);
  const ok = await deps.inquiries.realize(
    inquiryId,
    {
      accountId: account.id,
      authMethod: CONNECT_AUTH_METHOD,
      authTime,
      authorityVersion: account.authorityVersion,
      confirmationKeyHash: sha256Hex(confirmationKey),
      // Sealed under the KEK, bound to the inquiry id, so REVEAL and STATUS_POLL can hand it out later.
      confirmationKeyEnc: seal(deps.kek, confirmationKey, inquiryId),
    },
    new Date(deps.clock()),
  );
  return ok ? confirmationKey : undefined;
}
