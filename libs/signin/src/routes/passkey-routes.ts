// The JSON endpoints the page script calls for passkeys, under a target's page path: sign-in
// (.../passkey/authentication-options, .../passkey/authentication) and sign-up after a proven address
// (.../passkey/registration-options, .../passkey/registration). An options call answers the WebAuthn options, a
// finished ceremony `{next}`: the page to go to. The host names each literal path in its table; the library
// declares them as calls of the page kit, so the flow's CSRF token and Origin are checked before the body's
// schema (a forged call is 403 before a malformed one is 400).

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Endpoint, PageRequest } from '@svc/platform';
import { noticeBeforeCommit } from '../domain/passkey-notice';
import {
  type Ceremony,
  passkeySignIn,
  passkeySignInOptions,
  passkeySignUp,
  passkeySignUpOptions,
} from '../domain/passkey-steps';
import { describeUserAgent, deviceLabel } from '../domain/user-agent';
import type { Site } from '../site';
import { type Browser, PageError } from './browser';
import { browserKit, type OpenPage } from './page-kit';
import { passkeyCalls } from './page-schemas';

/** How a host opens its target's page for a request (finding the target from the path, then openBrowser). */
export type LoadPage<K extends string, B extends Browser<K> = Browser<K>> = OpenPage<B>;

/** The literal paths of passkey sign-in under one page path, e.g. `/device/passkey/authentication`. */
export interface PasskeySignInPaths {
  authenticationOptions: `/${string}/passkey/authentication-options`;
  authentication: `/${string}/passkey/authentication`;
}

/** The literal paths of passkey sign-up under one page path. */
export interface PasskeySignUpPaths {
  registrationOptions: `/${string}/passkey/registration-options`;
  registration: `/${string}/passkey/registration`;
}

/**
 * Counts a ceremony's call against the client address's sign-in limit (429 past it): only a genuine, well-formed
 * call counts, as on the account page.
 */
const countCall = <K extends string>(site: Site<K>, req: PageRequest<unknown>) =>
  site.signInLimit.consume(req.ip ?? '');

/** The ceremony's parts of a site: its stores, relying party and clock. */
const ceremonyOf = <K extends string>(site: Site<K>): Ceremony => ({
  ports: site.ports,
  config: site.config,
  clock: site.deps.clock,
});

/** Signs in with a passkey (usernameless); the target's allowed account, if any, is the only one accepted. */
export function passkeySignInEndpoints<K extends string>(
  site: Site<K>,
  load: LoadPage<K>,
  paths: PasskeySignInPaths,
): Endpoint[] {
  const ceremony = ceremonyOf(site);
  const page = browserKit(site, load);
  const flowOf = (b: Browser<K>) => ({ flowId: b.flowId, targetKey: b.target.key });
  return [
    page.call(paths.authenticationOptions, passkeyCalls.authenticationOptions, async (b, req) => {
      await countCall(site, req);
      return passkeySignInOptions(ceremony, flowOf(b));
    }),
    page.call(paths.authentication, passkeyCalls.authentication, async (b, req) => {
      await countCall(site, req);
      const body = req.body as AuthenticationResponseJSON;
      const proven = await passkeySignIn(ceremony, flowOf(b), body, b.target.accountId);
      if (proven === 'wrongAccount') throw new PageError('wrongAccount');
      // Signed in: a fresh flow identifier, so a planted or kept copy of the old cookie gains nothing.
      await b.rotate();
      Object.assign(b.flow, proven);
      await b.save();
      return { next: b.target.base };
    }),
  ];
}

/**
 * Signs up: registers a passkey for the address the flow proved by its emailed code (a new account, or a new
 * passkey on the address's account, whose owner is mailed first: no mail, no passkey).
 */
export function passkeySignUpEndpoints<K extends string>(
  site: Site<K>,
  load: LoadPage<K>,
  paths: PasskeySignUpPaths,
): Endpoint[] {
  const { deps, config } = site;
  const ceremony = ceremonyOf(site);
  const page = browserKit(site, load);
  const flowOf = (b: Browser<K>) => ({ flowId: b.flowId, targetKey: b.target.key });
  return [
    page.call(paths.registrationOptions, passkeyCalls.registrationOptions, async (b, req) => {
      await countCall(site, req);
      return passkeySignUpOptions(ceremony, flowOf(b), b.flow.verifiedEmail);
    }),
    page.call(paths.registration, passkeyCalls.registration, async (b, req) => {
      await countCall(site, req);
      const device = describeUserAgent(req.headers['user-agent']);
      const proven = await passkeySignUp(
        ceremony,
        flowOf(b),
        req.body as RegistrationResponseJSON,
        b.flow.verifiedEmail,
        {
          name: deviceLabel(device),
          locale: b.locale,
          // Added to an existing account through an emailed code: the owner is told, or nothing is added.
          beforeCommit: noticeBeforeCommit({ ...deps, accountPageUrl: config.accountPageUrl }, device),
        },
      );
      // Signed up: a fresh flow identifier, as at sign-in.
      await b.rotate();
      delete b.flow.verifiedEmail;
      delete b.flow.acr;
      Object.assign(b.flow, proven);
      await b.save();
      return { next: b.target.base };
    }),
  ];
}
