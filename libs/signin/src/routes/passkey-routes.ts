// The JSON endpoints the page script calls for passkeys, under a target's page path: sign-in
// (/passkey/authentication-options, /passkey/authentication) and sign-up after a proven address
// (/passkey/registration-options, /passkey/registration). Each answers `{next}`: the page to go to.

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { emailDomainPolicyOf } from '@svc/issuance';
import { jsonBody } from '@svc/platform';
import { type Request, type Response, Router } from 'express';
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
import { type Browser, csrfValid, PageError, readJson } from './browser';
import { authenticationBody, optionsBody, registrationBody } from './page-schemas';

/** How a host opens its target's page for a request (finding the target from the path, then openBrowser). */
export type LoadPage<K extends string, B extends Browser<K> = Browser<K>> = (
  req: Request,
  res: Response,
) => Promise<B>;

async function guarded<K extends string>(site: Site<K>, load: LoadPage<K>, req: Request, res: Response) {
  const b = await load(req, res);
  if (!csrfValid(site, req, b.flow)) throw new PageError(403, 'sessionExpired');
  await site.signInLimit.consume(req.ip ?? '');
  return b;
}

/** Signs in with a passkey (usernameless); the target's allowed account, if any, is the only one accepted. */
export function passkeySignInRoutes<K extends string>(site: Site<K>, load: LoadPage<K>): Router {
  const { deps, config, flows, accounts } = site;
  const router = Router({ mergeParams: true });
  const json = jsonBody(32 * 1024);

  router.post('/passkey/authentication-options', json, async (req, res) => {
    readJson(optionsBody, req);
    const b = await guarded(site, load, req, res);
    const options = await authenticationOptions(config);
    await flows.putChallenge(b.flowId, b.target.key, { value: options.challenge, kind: 'authenticate' });
    res.json(options);
  });

  router.post('/passkey/authentication', json, async (req, res) => {
    const body = readJson(authenticationBody, req);
    const b = await guarded(site, load, req, res);
    const challenge = await flows.takeChallenge(b.flowId, b.target.key);
    const { accountId, deviceBound } = await verifyAuthentication(
      { config, accounts, now: deps.now },
      body as AuthenticationResponseJSON,
      challenge,
    );
    if (b.target.accountId && b.target.accountId !== accountId) throw new PageError(403, 'wrongAccount');
    // Signed in: a fresh flow identifier, so a planted or kept copy of the old cookie gains nothing.
    await b.rotate();
    b.flow.accountId = accountId;
    b.flow.authTime = deps.now().getTime();
    Object.assign(b.flow, passkeySignInReferences(deviceBound));
    await b.save();
    res.json({ next: b.target.base });
  });
  return router;
}

/**
 * Signs up: registers a passkey for the address the flow proved by its emailed code (a new account, or a new
 * passkey on the address's account, whose owner is mailed first: no mail, no passkey).
 */
export function passkeySignUpRoutes<K extends string>(site: Site<K>, load: LoadPage<K>): Router {
  const { deps, config, flows, accounts } = site;
  const router = Router({ mergeParams: true });
  const json = jsonBody(32 * 1024);

  router.post('/passkey/registration-options', json, async (req, res) => {
    readJson(optionsBody, req);
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
  });

  router.post('/passkey/registration', json, async (req, res) => {
    const body = readJson(registrationBody, req);
    const b = await guarded(site, load, req, res);
    const email = b.flow.verifiedEmail;
    if (!email) throw passkeyRefused();
    const challenge = await flows.takeChallenge(b.flowId, b.target.key);
    const device = describeUserAgent(req.headers['user-agent']);
    const { accountId } = await verifyRegistration(
      { config, accounts },
      body as RegistrationResponseJSON,
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
    b.flow.authTime = deps.now().getTime();
    Object.assign(b.flow, emailCodeReferences());
    await b.save();
    res.json({ next: b.target.base });
  });
  return router;
}
