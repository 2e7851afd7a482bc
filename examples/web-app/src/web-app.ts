// The example application (CONTRACTS, "Application SDK and example application"): every route is a few lines over
// @signin-service/node. Tokens stay on the server, keyed by a random HttpOnly cookie; the browser never sees them.
import { randomBytes } from 'node:crypto';
import {
  createOidcClient,
  createSigninClient,
  createVerifier,
  type PendingAuthorization,
  requireAuth,
  SigninError,
  TokenVerificationError,
} from '@signin-service/node';
import express, { type Request, type Response } from 'express';
import type { ExampleConfig } from './config.ts';
import { EventLog } from './event-log.ts';
import { mountEvents, type SessionFacts } from './events.ts';
import { FAVICON, homePage, mePage, messagePage } from './pages.ts';
import { PendingStore } from './pending.ts';

export interface Signed extends SessionFacts {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
}

/** A short HTML page with a status: the example's every refusal. */
const answerPage = (res: Response, status: number, title: string, text: string) => {
  res.status(status).type('html').send(messagePage(title, text));
};

/** Every value the browser sent under `name` (a sibling origin may have planted more than one). */
const cookiesOf = (req: Request, name: string): string[] =>
  (req.headers.cookie ?? '')
    .split(/; */)
    .filter((c) => c.startsWith(`${name}=`))
    .map((c) => c.slice(name.length + 1));

/** The one value sent under `name`; two values are ambiguous (one was planted) and count as none. */
const cookieOf = (req: Request, name: string): string | undefined => {
  const values = cookiesOf(req, name);
  return values.length === 1 ? values[0] : undefined;
};

/**
 * `sessions` lets a test hold the server-side session map (a real application keeps it in its own store), `events`
 * the log /events shows.
 */
export function createWebApp(
  config: ExampleConfig,
  opts: { sessions?: Map<string, Signed>; events?: EventLog } = {},
) {
  const self = config.publicUrl;
  // On https the cookies are `__Host-` and Secure: no other origin on the same host (another port, a sibling
  // subdomain, plain http) can set or shadow them. Plain names are only for http://localhost development.
  const secure = self.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  const COOKIE = `${prefix}example_session`;
  const LOGIN_COOKIE = `${prefix}example_login`;
  const OIDC_COOKIE = `${prefix}example_oidc`;
  const cookieOptions = { httpOnly: true, sameSite: 'lax', path: '/', secure } as const;
  const client = createSigninClient({
    applicationAnchor: config.applicationAnchor,
    connectUrl: config.connectUrl,
    sessionUrl: config.sessionUrl,
    clientKey: config.clientKey,
  });
  const verifier = createVerifier({
    sessionUrl: config.sessionUrl,
    applicationAnchor: config.applicationAnchor,
    issuer: config.issuer,
  });
  const oidc = config.oidcClient
    ? createOidcClient({
        issuer: config.oidcUrl,
        clientId: config.oidcClient.clientId,
        clientSecret: config.oidcClient.clientSecret,
        redirectUri:
          config.oidcClient.redirectUris.find((u) => u.endsWith('/oidc/callback')) ?? `${self}/oidc/callback`,
      })
    : undefined;
  // Server-side state: a real application keeps these in its own session store.
  const sessions = opts.sessions ?? new Map<string, Signed>();
  // Pending sign-ins expire after 10 minutes and at most 100 of each are kept (the oldest dropped).
  const pendingLogins = new PendingStore<{ hiddenKey: string; browser: string }>();
  const pendingOidc = new PendingStore<PendingAuthorization>();

  const startSession = (req: Request, res: Response, signed: Signed) => {
    // Whatever session the browser brought (its own, or one planted for it) ends here: a fresh id, no fixation.
    for (const old of cookiesOf(req, COOKIE)) sessions.delete(old);
    const id = randomBytes(32).toString('base64url');
    sessions.set(id, signed);
    res.cookie(COOKIE, id, cookieOptions).redirect(303, '/me');
  };

  const app = express();
  app.disable('x-powered-by');
  mountEvents(app, { config, sessions, oidc, log: opts.events ?? new EventLog() });

  app.get('/favicon.svg', (_req, res) => {
    res.type('image/svg+xml').set('cache-control', 'public, max-age=86400').send(FAVICON);
  });

  app.get('/', (_req, res) => {
    res.type('html').send(homePage(config.problems));
  });

  app.get('/login', async (req, res, next) => {
    try {
      const browser = cookieOf(req, LOGIN_COOKIE) ?? randomBytes(16).toString('base64url');
      const started = await client.establish({
        returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl: `${self}/callback` } }],
      });
      // The hidden key stays here, bound to this browser, so a callback from another browser redeems nothing.
      pendingLogins.set(started.exposureKey, { hiddenKey: started.hiddenKey, browser });
      res.cookie(LOGIN_COOKIE, browser, cookieOptions).redirect(303, started.url);
    } catch (err) {
      next(err);
    }
  });

  app.get('/callback', async (req, res, next) => {
    const exposureKey = String(req.query.exposureKey ?? '');
    const pending = pendingLogins.get(exposureKey);
    if (!pending || pending.browser !== cookieOf(req, LOGIN_COOKIE)) {
      answerPage(res, 400, 'Sign-in not recognised', 'Start again from the home page.');
      return;
    }
    try {
      pendingLogins.delete(exposureKey);
      const { hiddenKey } = pending;
      const tokens = await client.redeem({
        exposureKey,
        hiddenKey,
        confirmationKey: String(req.query.confirmationKey),
      });
      // The token's sid and sub are what a security event names to end this session.
      const { sid, sub } = await verifier.verify(tokens.accessToken);
      startSession(req, res, {
        via: 'connect',
        sid,
        sub,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
      });
    } catch (err) {
      next(err);
    }
  });

  /** The signed-in session with a live access token (refreshed when expired), or undefined. */
  async function current(req: Request): Promise<Signed | undefined> {
    const id = cookieOf(req, COOKIE);
    const signed = id ? sessions.get(id) : undefined;
    if (!id || !signed) return undefined;
    try {
      await verifier.verify(signed.accessToken);
      return signed;
    } catch (err) {
      if (!(err instanceof TokenVerificationError) || err.reason !== 'TokenExpired' || !signed.refreshToken) {
        throw err;
      }
      const pair = await client.refresh(signed.refreshToken);
      const renewed = { ...signed, accessToken: pair.accessToken, refreshToken: pair.refreshToken };
      sessions.set(id, renewed);
      return renewed;
    }
  }

  app.get('/me', async (req, res, next) => {
    try {
      const signed = await current(req).catch(() => undefined);
      const wantsJson = req.accepts(['html', 'json']) === 'json';
      if (!signed) {
        if (wantsJson) res.status(401).json({ reason: 'NotSignedIn' });
        else answerPage(res, 401, 'Not signed in', 'Sign in from the home page.');
        return;
      }
      const profile =
        signed.via === 'oidc' && oidc
          ? await oidc.userinfo(signed.accessToken)
          : await client.userinfo(signed.accessToken);
      if (wantsJson) res.json(profile);
      else
        res
          .type('html')
          .send(
            mePage(signed.via === 'oidc' ? 'OpenID Connect' : 'the sign-in service', profile, signed.sid),
          );
    } catch (err) {
      next(err);
    }
  });

  // An API for other backends or scripts: the package's middleware checks the bearer token.
  app.get('/api/whoami', requireAuth(verifier), (req, res) => {
    res.json({ sub: req.auth?.sub });
  });

  app.post('/logout', async (req, res, next) => {
    const origin = req.headers.origin;
    if (origin && origin !== self && origin !== `http://127.0.0.1:${config.port}`) {
      answerPage(res, 403, 'Refused', 'A sign-out must come from this site.');
      return;
    }
    try {
      const id = cookieOf(req, COOKIE);
      const signed = id ? sessions.get(id) : undefined;
      if (id) sessions.delete(id);
      if (signed?.refreshToken) await client.logout(signed.refreshToken);
      res.clearCookie(COOKIE, cookieOptions).redirect(303, '/');
    } catch (err) {
      next(err);
    }
  });

  app.get('/oidc/login', async (_req, res, next) => {
    if (!oidc) {
      answerPage(res, 503, 'OIDC not set up', 'Run `pnpm demo` to register the OIDC client.');
      return;
    }
    try {
      const { url, pending } = await oidc.authorizationRequest({ scope: 'openid profile email' });
      pendingOidc.set(pending.state, pending);
      res.cookie(OIDC_COOKIE, pending.state, cookieOptions).redirect(303, url);
    } catch (err) {
      next(err);
    }
  });

  app.get('/oidc/callback', async (req, res, next) => {
    const state = cookieOf(req, OIDC_COOKIE);
    const pending = state ? pendingOidc.get(state) : undefined;
    if (!oidc || !state || !pending) {
      answerPage(res, 400, 'Sign-in not recognised', 'Start again from the home page.');
      return;
    }
    try {
      pendingOidc.delete(state);
      const query = new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1));
      const tokens = await oidc.callback(query, pending);
      const { sid, sub } = await verifier.verify(tokens.accessToken);
      res.clearCookie(OIDC_COOKIE, cookieOptions);
      // A back-channel logout token names the ID token's sid, kept beside the access token's.
      const idTokenSid = typeof tokens.claims.sid === 'string' ? tokens.claims.sid : undefined;
      startSession(req, res, {
        via: 'oidc',
        sid,
        sub,
        idTokenSid,
        accessToken: tokens.accessToken,
        refreshToken: undefined,
        idToken: tokens.idToken,
      });
    } catch (err) {
      next(err);
    }
  });

  // Failures of the service are shown by their reason; nothing internal reaches the page.
  app.use((err: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    const { reason, error } = err as { reason?: string; error?: string };
    const shown = err instanceof SigninError ? (reason ?? error ?? err.name) : 'Error';
    if (!(err instanceof SigninError))
      process.stderr.write(`example: ${err instanceof Error ? err.message : String(err)}\n`);
    answerPage(res, 502, 'The sign-in service refused', String(shown));
  });

  return app;
}
