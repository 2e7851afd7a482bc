// Connect calls: /establish (a fresh client-auth JWT over the exact body), the inquiry page URL, the inquiry status
// poll, /redeem and /info. None is retried: a second /establish makes a second inquiry, and /redeem is single use.
import type { Context } from './context.ts';
import { AUDIENCE, CLIENT_AUTH_TYP, signBound } from './signing.ts';
import type { EstablishRequest, Inquiry, InquiryKeys, IssuedTokens } from './types.ts';

export interface InquiryStatus {
  state: 'established' | 'realized' | 'redeemed' | 'expired';
  expiresAt: string;
  confirmationKey?: string;
}

export function connectCalls(ctx: Context) {
  return {
    /** Creates an inquiry; send the person to `inquiry.url`. Keep `hiddenKey` on your server. */
    async establish(request: EstablishRequest = {}): Promise<Inquiry> {
      const body = JSON.stringify({ applicationAnchor: ctx.anchor, ...request });
      const signer = await ctx.clientSigner();
      const jws = await signBound(signer, {
        typ: CLIENT_AUTH_TYP,
        iss: ctx.anchor,
        aud: AUDIENCE.connect,
        body,
        nowMs: ctx.now(),
      });
      const created = await ctx.post<Omit<Inquiry, 'url'>>('connect', '/establish', body, {
        headers: { authorization: `ClientAuth ${jws}` },
      });
      return { ...created, url: ctx.url('connect', `/inquiries/${encodeURIComponent(created.exposureKey)}`) };
    },

    /** The inquiry status poll (STATUS_POLL): `confirmationKey` arrives once the person has signed in. */
    inquiryStatus(keys: { exposureKey: string; hiddenKey: string }): Promise<InquiryStatus> {
      return ctx.post<InquiryStatus>('connect', `/inquiries/${encodeURIComponent(keys.exposureKey)}/status`, {
        hiddenKey: keys.hiddenKey,
      });
    },

    /** Redeems a realized inquiry for the token pair (single use). */
    redeem(keys: InquiryKeys): Promise<IssuedTokens> {
      const { exposureKey, hiddenKey, confirmationKey } = keys;
      return ctx.post<IssuedTokens>('connect', '/redeem', { exposureKey, hiddenKey, confirmationKey });
    },

    /** The application's localized name (`locale` a BCP 47 tag; falls back to the default locale). */
    info(locale: string): Promise<{ applicationAnchor: string; applicationName: string }> {
      return ctx.post('connect', '/info', { applicationAnchor: ctx.anchor, locale });
    },
  };
}
