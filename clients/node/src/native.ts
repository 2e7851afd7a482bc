// Native calls: the three direct-issue paths and /errand. The public-key assertion is signed for the exact body
// bytes, and signed afresh for the one retry the spec allows (a replayed jti or an authority change: "sign a fresh
// assertion and retry the complete exchange"); the access-key exchange is retried whole on AuthorizationArtifactStale.
import { type Context, hasReason } from './context.ts';
import {
  AUDIENCE,
  boundSigner,
  PUBLIC_KEY_ASSERTION_TYP,
  type SigningKeyInput,
  signBound,
} from './signing.ts';
import type { AgreementAcceptance, ClaimView, Errand, IssuedTokens } from './types.ts';

export interface PublicKeyCredential {
  /** The Ed25519 private key registered as `pky_...` (a private JWK with `d`, or a CryptoKey). */
  key: SigningKeyInput;
  /** Its key id (`pky_...`), unless the JWK carries it. */
  kid?: string;
}

export function nativeCalls(ctx: Context) {
  return {
    /** Exchanges an access key (identifier `acs_k_...`, secret `acs_t_...`) for a token pair. */
    directIssueAccessKey(credential: {
      accessKeyIdentifier: string;
      accessKeySecret: string;
    }): Promise<IssuedTokens> {
      const body = {
        applicationAnchor: ctx.anchor,
        accessKeyIdentifier: credential.accessKeyIdentifier,
        accessKeySecret: credential.accessKeySecret,
      };
      return ctx.retrying(
        () => ctx.post<IssuedTokens>('native', '/direct-issue/access-key', body),
        hasReason('AuthorizationArtifactStale'),
      );
    },

    /** Exchanges a public-key assertion (signed here, for the exact body) for a token pair. */
    async directIssuePublicKey(credential: PublicKeyCredential): Promise<IssuedTokens> {
      const signer = await boundSigner(credential.key, credential.kid);
      const body = JSON.stringify({ applicationAnchor: ctx.anchor });
      return ctx.retrying(
        async () => {
          const jws = await signBound(signer, {
            typ: PUBLIC_KEY_ASSERTION_TYP,
            iss: signer.kid,
            aud: AUDIENCE.nativePublicKey,
            body,
            nowMs: ctx.now(),
          });
          return ctx.post<IssuedTokens>('native', '/direct-issue/public-key', body, {
            headers: { authorization: `PublicKey ${jws}` },
          });
        },
        hasReason('PublicKeyAssertionReplayed', 'AuthorizationArtifactStale'),
      );
    },

    /**
     * Exchanges a hex-encoded game-platform ticket. Not retried: a ticket is single use, so a retry needs a fresh
     * ticket from the platform (and, after LegalAgreementRequired, `agreementAcceptance`).
     */
    directIssuePlatformTicket(request: {
      platformTicketHex: string;
      platformAppId: number;
      agreementAcceptance?: AgreementAcceptance;
    }): Promise<IssuedTokens> {
      return ctx.post('native', '/direct-issue/platform-ticket', {
        applicationAnchor: ctx.anchor,
        ...request,
      });
    },

    /** What the person owes for this session (`errand` null when nothing): open `errand.url` in a browser. */
    errand(accessToken: string): Promise<{ claims: ClaimView; errand: Errand | null }> {
      return ctx.post('native', '/errand', { accessToken });
    },
  };
}
