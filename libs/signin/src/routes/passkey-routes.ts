// The JSON endpoints the page script calls for passkeys, under a target's page path: sign-in
// (.../passkey/authentication-options, .../passkey/authentication) and sign-up after a proven address
// (.../passkey/registration-options, .../passkey/registration). Each answers `{next}`: the page to go to. The host
// names each literal path in its table; the library declares method, body schema and handler.

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { emailDomainPolicyOf } from '@svc/issuance';
import { type Endpoint, type PageRequest, pageEndpoint } from '@svc/platform';
import type { Response } from 'express';
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
import { type Browser, csrfValid, PageError } from './browser';
import { JSON_CALL } from './page-kit';
import { authenticationBody, optionsBody, passkeyCallDocs, registrationBody } from './page-schemas';

/** How a host opens its target's page for a request (finding the target from the path, then openBrowser). */
export type LoadPage<K extends string, B extends Browser<K> = Browser<K>> = (
  req: PageRequest<unknown>,
  res: Response,
) => Promise<B>;

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

async function guarded<K extends string>(
  site: Site<K>,
  load: LoadPage<K>,
  req: PageRequest<unknown>,
  res: Response,
) {
  const b = await load(req, res);
  if (!csrfValid(site, req, b.flow)) throw new PageError(403, 'sessionExpired');
  await site.signInLimit.consume(req.ip ?? '');
  return b;
}

/** Signs in with a passkey (usernameless); the target's allowed account, if any, is the only one accepted. */
export function passkeySignInEndpoints<K extends string>(
  site: Site<K>,
  load: LoadPage<K>,
  paths: PasskeySignInPaths,
): Endpoint[] {
  const { deps, config, flows, accounts } = site;
  return [
    pageEndpoint({
      method: 'POST',
      path: paths.authenticationOptions,
      body: { kind: 'json', schema: optionsBody, ...JSON_CALL },
      noStore: false,
      doc: passkeyCallDocs.authenticationOptions,
      page: async (req, res) => {
        const b = await guarded(site, load, req, res);
        const options = await authenticationOptions(config);
        await flows.putChallenge(b.flowId, b.target.key, { value: options.challenge, kind: 'authenticate' });
        res.json(options);
      },
    }),
    pageEndpoint({
      method: 'POST',
      path: paths.authentication,
      body: { kind: 'json', schema: authenticationBody, ...JSON_CALL },
      noStore: false,
      doc: passkeyCallDocs.finished,
      page: async (req, res) => {
        const b = await guarded(site, load, req, res);
        const challenge = await flows.takeChallenge(b.flowId, b.target.key);
        const { accountId, deviceBound } = await verifyAuthentication(
          { config, accounts, clock: deps.clock },
          req.body as AuthenticationResponseJSON,
          challenge,
        );
        if (b.target.accountId && b.target.accountId !== accountId) throw new PageError(403, 'wrongAccount');
        // Signed in: a fresh flow identifier, so a planted or kept copy of the old cookie gains nothing.
        await b.rotate();
        b.flow.accountId = accountId;
        b.flow.authTime = deps.clock();
        Object.assign(b.flow, passkeySignInReferences(deviceBound));
        await b.save();
        res.json({ next: b.target.base });
      },
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
  return [
    pageEndpoint({
      method: 'POST',
      path: paths.registrationOptions,
      body: { kind: 'json', schema: optionsBody, ...JSON_CALL },
      noStore: false,
      doc: passkeyCallDocs.registrationOptions,
      page: async (req, res) => {
        const b = await guarded(site, load, req, res);
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
        res.json(options);
      },
    }),
    pageEndpoint({
      method: 'POST',
      path: paths.registration,
      body: { kind: 'json', schema: registrationBody, ...JSON_CALL },
      noStore: false,
      doc: passkeyCallDocs.finished,
      page: async (req, res) => {
        const b = await guarded(site, load, req, res);
        const email = b.flow.verifiedEmail;
        if (!email) throw passkeyRefused();
        const challenge = await flows.takeChallenge(b.flowId, b.target.key);
        const device = describeUserAgent(req.headers['user-agent']);
        const { accountId } = await verifyRegistration(
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
        Object.assign(b.flow, emailCodeReferences());
        await b.save();
        res.json({ next: b.target.base });
      },
    }),
  ];
}
