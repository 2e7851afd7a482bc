// The JSON endpoints the page script calls for passkeys, under a target's page path: sign-in
// (.../passkey/authentication-options, .../passkey/authentication) and sign-up after a proven address
// (.../passkey/registration-options, .../passkey/registration). An options call answers the WebAuthn options, a
// finished ceremony `{next}`: the page to go to. The host names each literal path in its table; the library
// declares them as calls of the page kit, so the flow's CSRF token and Origin are checked before the body's
// schema (a forged call is 403 before a malformed one is 400).

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { emailDomainPolicyOf } from '@svc/issuance';
import type { Endpoint, PageRequest } from '@svc/platform';
import { emailCodeReferences, passkeySignInReferences } from '../domain/auth-references';
import { noticeBeforeCommit } from '../domain/passkey-notice';
import {
  authenticationOptions,
  passkeyRefused,
  registrationOptions,
  verifyAuthentication,
  verifyRegistration,
} from '../domain/passkeys';
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

/** Signs in with a passkey (usernameless); the target's allowed account, if any, is the only one accepted. */
export function passkeySignInEndpoints<K extends string>(
  site: Site<K>,
  load: LoadPage<K>,
  paths: PasskeySignInPaths,
): Endpoint[] {
  const { deps, config, flows, accounts } = site;
  const page = browserKit(site, load);
  return [
    page.call(paths.authenticationOptions, passkeyCalls.authenticationOptions, async (b, req) => {
      await countCall(site, req);
      const options = await authenticationOptions(config);
      await flows.putChallenge(b.flowId, b.target.key, { value: options.challenge, kind: 'authenticate' });
      return options;
    }),
    page.call(paths.authentication, passkeyCalls.authentication, async (b, req) => {
      await countCall(site, req);
      const challenge = await flows.takeChallenge(b.flowId, b.target.key);
      const { accountId, deviceBound, authority } = await verifyAuthentication(
        { config, accounts, clock: deps.clock },
        req.body as AuthenticationResponseJSON,
        challenge,
      );
      if (b.target.accountId && b.target.accountId !== accountId) throw new PageError('wrongAccount');
      // Signed in: a fresh flow identifier, so a planted or kept copy of the old cookie gains nothing.
      await b.rotate();
      b.flow.accountId = accountId;
      b.flow.authTime = deps.clock();
      b.flow.authority = authority;
      Object.assign(b.flow, passkeySignInReferences(deviceBound));
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
  const { deps, config, flows, accounts } = site;
  const page = browserKit(site, load);
  return [
    page.call(paths.registrationOptions, passkeyCalls.registrationOptions, async (b, req) => {
      await countCall(site, req);
      const email = b.flow.verifiedEmail;
      // The domain may have been blocked since the code was mailed: a blocked domain never gets an account.
      if (!email || (await emailDomainPolicyOf(deps.db, email)) === 'BLOCK') throw passkeyRefused();
      const existing = await accounts.byEmail(email);
      const creds = existing ? await accounts.passkeysOf(existing.id) : [];
      const { options, userHandle } = await registrationOptions(config, email, creds);
      await flows.putChallenge(b.flowId, b.target.key, {
        value: options.challenge,
        kind: 'register',
        userHandle,
      });
      return options;
    }),
    page.call(paths.registration, passkeyCalls.registration, async (b, req) => {
      await countCall(site, req);
      const email = b.flow.verifiedEmail;
      if (!email) throw passkeyRefused();
      const challenge = await flows.takeChallenge(b.flowId, b.target.key);
      const device = describeUserAgent(req.headers['user-agent']);
      const { accountId, authority } = await verifyRegistration(
        { config, accounts },
        req.body as RegistrationResponseJSON,
        challenge,
        email,
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
      b.flow.accountId = accountId;
      b.flow.authTime = deps.clock();
      b.flow.authority = authority;
      Object.assign(b.flow, emailCodeReferences());
      await b.save();
      return { next: b.target.base };
    }),
  ];
}
