// A small OpenID Connect relying party for the OIDC host: discovery, the authorization-code flow with PKCE (S256),
// state and nonce, and the ID token verified with jose against the discovered platform key set (iss, aud =
// client_id, nonce, at_hash). Any stock OIDC library works as well; this one keeps an application on one package.
import { base64url, type JWTPayload, jwtVerify } from 'jose';
import { createDpopSigner, type DpopSigner } from './dpop.ts';
import { SigninApiError } from './errors.ts';
import { memoryJtiStore, type SeenJtiStore } from './events.ts';
import { call, type FetchLike, type Transport, trimBase } from './http.ts';
import { OidcKeySet } from './oidc-key-set.ts';
import { type LogoutToken, verifyLogoutToken } from './oidc-logout.ts';

export interface OidcClientOptions {
  /** OIDC_URL: the issuer, whose discovery document names every endpoint. */
  issuer: string;
  clientId: string;
  /** Confidential clients only (client_secret_basic); public clients use PKCE alone. */
  clientSecret?: string;
  redirectUri: string;
  fetch?: FetchLike;
  timeoutMs?: number;
  /** Milliseconds since the epoch (default Date.now): the clock for the JWK Set's cache and removed-key grace. */
  now?: () => number;
  /**
   * DPoP (RFC 9449): `true` makes a new ES256 key pair (non-extractable) for this client, or pass your own signer
   * (createDpopSigner) to keep tokens usable across restarts. Every /token and /userinfo call then carries a proof;
   * the access token (and a public client's refresh token) is bound to the key.
   */
  dpop?: boolean | DpopSigner;
  /** Where back-channel logout tokens' jtis are kept (default: this process's memory; replicas pass a shared one). */
  logoutSeen?: SeenJtiStore;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  end_session_endpoint?: string;
  jwks_uri: string;
  authorization_response_iss_parameter_supported?: boolean;
}

/** What to keep (server-side, or in a signed cookie) between the redirect and the callback. */
export interface PendingAuthorization {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcTokens {
  idToken: string;
  /** The verified ID token's claims (`sub` is the same pairwise subject as the access token's). */
  claims: JWTPayload & { sub: string };
  /** The application's own access token: verify it with `createVerifier` like any other. */
  accessToken: string;
  /** `DPoP` when the access token is bound to this client's DPoP key (present it with a proof), else `Bearer`. */
  tokenType: 'Bearer' | 'DPoP';
  refreshToken?: string;
  expiresIn?: number;
}

interface TokenAnswer {
  id_token?: string;
  access_token?: string;
  token_type?: string;
  refresh_token?: string;
  expires_in?: number;
}

const random = () => base64url.encode(crypto.getRandomValues(new Uint8Array(32)));

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

export function createOidcClient(opts: OidcClientOptions) {
  const transport: Transport = {
    fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs: opts.timeoutMs ?? 10_000,
  };
  const issuer = trimBase(opts.issuer);
  let signer: Promise<DpopSigner> | undefined;
  const dpopSigner = (): Promise<DpopSigner> | undefined => {
    if (!opts.dpop) return undefined;
    signer ??= opts.dpop === true ? createDpopSigner() : Promise.resolve(opts.dpop);
    return signer;
  };

  /** POSTs a /token form, authenticated as the client registered, with a DPoP proof when the client uses DPoP. */
  const tokenCall = async (doc: Discovery, form: URLSearchParams): Promise<TokenAnswer> => {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (opts.clientSecret) {
      const basic = `${encodeURIComponent(opts.clientId)}:${encodeURIComponent(opts.clientSecret)}`;
      headers.authorization = `Basic ${btoa(basic)}`;
    } else {
      form.set('client_id', opts.clientId);
    }
    const dpop = await dpopSigner();
    if (dpop) headers.dpop = await dpop.proof('POST', doc.token_endpoint);
    return call<TokenAnswer>(transport, doc.token_endpoint, {
      endpoint: 'POST /token',
      body: form.toString(),
      headers,
    });
  };
  const tokenTypeOf = (tokens: TokenAnswer): 'Bearer' | 'DPoP' =>
    tokens.token_type?.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const logoutSeen = opts.logoutSeen ?? memoryJtiStore();
  let discovered: Promise<{ doc: Discovery; jwks: OidcKeySet['getKey'] }> | undefined;

  const discover = () => {
    discovered ??= call<Discovery>(transport, `${issuer}/.well-known/openid-configuration`, {
      method: 'GET',
      endpoint: 'GET /.well-known/openid-configuration',
    }).then((doc) => {
      if (doc.issuer !== issuer)
        throw new TypeError(`discovery names issuer ${doc.issuer}, expected ${issuer}`);
      const keySet = new OidcKeySet(doc.jwks_uri, { transport, now: opts.now });
      const jwks: OidcKeySet['getKey'] = (header) => keySet.getKey(header);
      return { doc, jwks };
    });
    discovered.catch(() => {
      discovered = undefined;
    });
    return discovered;
  };

  return {
    discover: async () => (await discover()).doc,

    /** The URL to redirect the person to, and what to keep for the callback. */
    async authorizationRequest(
      params: { scope?: string; prompt?: string } = {},
    ): Promise<{ url: string; pending: PendingAuthorization }> {
      const { doc } = await discover();
      const pending = { state: random(), nonce: random(), codeVerifier: random() };
      const url = new URL(doc.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: opts.clientId,
        redirect_uri: opts.redirectUri,
        scope: params.scope ?? 'openid profile email',
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: base64url.encode(await sha256(pending.codeVerifier)),
        code_challenge_method: 'S256',
        ...(params.prompt ? { prompt: params.prompt } : {}),
      }).toString();
      return { url: url.toString(), pending };
    },

    /** Completes the flow from the callback's query: checks state and iss, redeems the code, verifies the ID token. */
    async callback(
      query: URLSearchParams | Record<string, string>,
      pending: PendingAuthorization,
    ): Promise<OidcTokens> {
      const { doc, jwks } = await discover();
      const q = query instanceof URLSearchParams ? query : new URLSearchParams(query);
      if (q.get('state') !== pending.state)
        throw new SigninApiError('GET callback', 400, { error: 'invalid_state' });
      // RFC 9207: when discovery says iss is sent, a callback without it is refused too.
      const issRequired = doc.authorization_response_iss_parameter_supported === true;
      if ((issRequired || q.has('iss')) && q.get('iss') !== doc.issuer) {
        throw new SigninApiError('GET callback', 400, { error: 'invalid_issuer' });
      }
      const error = q.get('error');
      if (error)
        throw new SigninApiError('GET callback', 400, {
          error,
          error_description: q.get('error_description'),
        });
      const code = q.get('code');
      if (!code) throw new SigninApiError('GET callback', 400, { error: 'invalid_request' });
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: opts.redirectUri,
        code_verifier: pending.codeVerifier,
      });
      const tokens = await tokenCall(doc, form);
      if (!tokens.id_token || !tokens.access_token) {
        throw new SigninApiError('POST /token', 502, { error: 'invalid_response' });
      }
      const { payload } = await jwtVerify(tokens.id_token, jwks, {
        issuer: doc.issuer,
        audience: opts.clientId,
        algorithms: ['RS256'],
      });
      if (
        payload.nonce !== pending.nonce ||
        typeof payload.sub !== 'string' ||
        !audienceAccepted(payload, opts.clientId)
      ) {
        throw new SigninApiError('POST /token', 502, { error: 'invalid_id_token' });
      }
      if (typeof payload.at_hash === 'string') {
        const digest = await sha256(tokens.access_token);
        if (payload.at_hash !== base64url.encode(digest.slice(0, 16))) {
          throw new SigninApiError('POST /token', 502, { error: 'invalid_id_token' });
        }
      }
      return {
        idToken: tokens.id_token,
        claims: payload as JWTPayload & { sub: string },
        accessToken: tokens.access_token,
        tokenType: tokenTypeOf(tokens),
        refreshToken: tokens.refresh_token,
        expiresIn: tokens.expires_in,
      };
    },

    /**
     * The refresh grant: a new access token (and refresh token) for `refreshToken`, with a proof when this client
     * uses DPoP (a public client's bound refresh token is refused without one by the same key). The new ID token is
     * verified as at the callback (no nonce).
     */
    async refresh(refreshToken: string): Promise<OidcTokens> {
      const { doc, jwks } = await discover();
      const tokens = await tokenCall(
        doc,
        new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      );
      if (!tokens.id_token || !tokens.access_token) {
        throw new SigninApiError('POST /token', 502, { error: 'invalid_response' });
      }
      const { payload } = await jwtVerify(tokens.id_token, jwks, {
        issuer: doc.issuer,
        audience: opts.clientId,
        algorithms: ['RS256'],
      });
      if (typeof payload.sub !== 'string' || !audienceAccepted(payload, opts.clientId))
        throw new SigninApiError('POST /token', 502, { error: 'invalid_id_token' });
      return {
        idToken: tokens.id_token,
        claims: payload as JWTPayload & { sub: string },
        accessToken: tokens.access_token,
        tokenType: tokenTypeOf(tokens),
        refreshToken: tokens.refresh_token,
        expiresIn: tokens.expires_in,
      };
    },

    /** The OIDC host's userinfo (OIDC sessions read their profile here, not at the session host). */
    async userinfo(accessToken: string): Promise<Record<string, unknown> & { sub: string }> {
      const { doc } = await discover();
      const dpop = await dpopSigner();
      // A DPoP client's tokens are bound: presented as DPoP with a proof naming this call and the token (ath).
      const headers: Record<string, string> = dpop
        ? {
            authorization: `DPoP ${accessToken}`,
            dpop: await dpop.proof('GET', doc.userinfo_endpoint, accessToken),
          }
        : { authorization: `Bearer ${accessToken}` };
      return call(transport, doc.userinfo_endpoint, { method: 'GET', endpoint: 'GET /userinfo', headers });
    },

    /** This client's DPoP signer (its key's thumbprint is the tokens' cnf.jkt), when it uses DPoP. */
    dpop: () => dpopSigner(),

    /**
     * OIDC Back-Channel Logout 1.0: verifies the `logout_token` the OP posted to your backchannel_logout_uri
     * (oidc-logout.ts). Throws LogoutTokenError (answer 400) when it does not verify; end the sessions it names.
     */
    async verifyLogoutToken(logoutToken: string): Promise<LogoutToken> {
      const { doc, jwks } = await discover();
      return verifyLogoutToken(logoutToken, {
        issuer: doc.issuer,
        clientId: opts.clientId,
        getKey: jwks,
        seen: logoutSeen,
        now: opts.now ?? Date.now,
      });
    },

    /** Where to send the person to end their OIDC sign-in (`id_token_hint`), returning to `postLogoutRedirectUri`. */
    async endSessionUrl(idToken: string, postLogoutRedirectUri?: string): Promise<string | undefined> {
      const { doc } = await discover();
      if (!doc.end_session_endpoint) return undefined;
      const url = new URL(doc.end_session_endpoint);
      url.searchParams.set('id_token_hint', idToken);
      if (postLogoutRedirectUri) url.searchParams.set('post_logout_redirect_uri', postLogoutRedirectUri);
      return url.toString();
    },
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;

/**
 * OIDC Core 3.1.3.7, steps 3 to 5: every `aud` member is this client (no other audience is trusted), and an ID
 * token with several audiences, or any `azp`, names this client as `azp`.
 */
export function audienceAccepted(payload: JWTPayload, clientId: string): boolean {
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (aud.length === 0 || aud.some((a) => a !== clientId)) return false;
  if ((aud.length > 1 || payload.azp !== undefined) && payload.azp !== clientId) return false;
  return true;
}
