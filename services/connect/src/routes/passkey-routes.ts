// The JSON endpoints the page script calls for passkeys, shared by inquiry and errand pages:
// <base>/passkey/authentication-options, /authentication, /registration-options, /registration.

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { emailDomainPolicyOf } from '@svc/issuance';
import { jsonBody, type RateLimiter } from '@svc/platform';
import type { Request, Response, Router } from 'express';
import type { ConnectDeps } from '../deps';
import { noticeBeforeCommit } from '../domain/passkey-notice';
import {
  authenticationOptions,
  passkeyRefused,
  registrationOptions,
  verifyAuthentication,
  verifyRegistration,
} from '../domain/passkeys';
import { describeUserAgent, deviceLabel } from '../domain/user-agent';
import type { AccountStore } from '../store/accounts';
import type { FlowStore } from '../store/flows';
import { type Browser, csrfValid, PageError, readJson } from './browser';
import { authenticationBody, optionsBody, registrationBody } from './page-schemas';

export interface PasskeyRouteDeps {
  deps: ConnectDeps;
  flows: FlowStore;
  accounts: AccountStore;
  /** Sign-in attempts per client address. */
  signInLimit: RateLimiter;
  load(req: Request, res: Response): Promise<Browser>;
}

async function guarded(r: PasskeyRouteDeps, req: Request, res: Response): Promise<Browser> {
  const b = await r.load(req, res);
  if (!csrfValid(r.deps, req, b.flow)) throw new PageError(403, 'sessionExpired');
  await r.signInLimit.consume(req.ip ?? '');
  return b;
}

export function passkeyRoutes(
  router: Router,
  prefix: string,
  r: PasskeyRouteDeps,
  allowRegistration: boolean,
): void {
  const { deps, flows, accounts } = r;
  const json = jsonBody(32 * 1024);

  router.post(`${prefix}/passkey/authentication-options`, json, async (req, res) => {
    readJson(optionsBody, req);
    const b = await guarded(r, req, res);
    const options = await authenticationOptions(deps.config);
    await flows.putChallenge(b.flowId, b.target.key, { value: options.challenge, kind: 'authenticate' });
    res.json(options);
  });

  router.post(`${prefix}/passkey/authentication`, json, async (req, res) => {
    const body = readJson(authenticationBody, req);
    const b = await guarded(r, req, res);
    const challenge = await flows.takeChallenge(b.flowId, b.target.key);
    const { accountId } = await verifyAuthentication(
      { config: deps.config, accounts, now: deps.now },
      body as AuthenticationResponseJSON,
      challenge,
    );
    if (b.target.accountId && b.target.accountId !== accountId) throw new PageError(403, 'wrongAccount');
    // Signed in: a fresh flow identifier, so a planted or kept copy of the old cookie gains nothing.
    await b.rotate();
    b.flow.accountId = accountId;
    b.flow.authTime = deps.now().getTime();
    await b.save();
    res.json({ next: b.target.base });
  });

  if (!allowRegistration) return;

  router.post(`${prefix}/passkey/registration-options`, json, async (req, res) => {
    readJson(optionsBody, req);
    const b = await guarded(r, req, res);
    const email = b.flow.verifiedEmail;
    // The domain may have been blocked since the code was mailed: a blocked domain never gets an account.
    if (!email || (await emailDomainPolicyOf(deps.db, email)) === 'BLOCK') throw passkeyRefused();
    const existing = await accounts.byEmail(email);
    const creds = existing ? await accounts.passkeysOf(existing.id) : [];
    const { options, userHandle } = await registrationOptions(deps.config, email, creds);
    await flows.putChallenge(b.flowId, b.target.key, {
      value: options.challenge,
      kind: 'register',
      userHandle,
    });
    res.json(options);
  });

  router.post(`${prefix}/passkey/registration`, json, async (req, res) => {
    const body = readJson(registrationBody, req);
    const b = await guarded(r, req, res);
    const email = b.flow.verifiedEmail;
    if (!email) throw passkeyRefused();
    const challenge = await flows.takeChallenge(b.flowId, b.target.key);
    const device = describeUserAgent(req.headers['user-agent']);
    const { accountId } = await verifyRegistration(
      { config: deps.config, accounts },
      body as RegistrationResponseJSON,
      challenge,
      email,
      {
        name: deviceLabel(device),
        locale: b.locale,
        // Added to an existing account through an emailed code: the owner is told, or nothing is added.
        beforeCommit: noticeBeforeCommit({ ...deps, connectUrl: deps.config.connectUrl }, device),
      },
    );
    // Signed up: a fresh flow identifier, as at sign-in.
    await b.rotate();
    delete b.flow.verifiedEmail;
    b.flow.accountId = accountId;
    b.flow.authTime = deps.now().getTime();
    await b.save();
    res.json({ next: b.target.base });
  });
}
