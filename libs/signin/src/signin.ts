// createSignin: the shared sign-in steps bound to one host. The host supplies only what is its own (its target,
// its namespace and strings, its final step); see /work/notes/signin.md and services/connect/src/routes for use.
import type { Endpoint } from '@svc/platform';
import type { Request, Response } from 'express';
import type { OwedStep, SignedIn } from './domain/sign-in-steps';
import type { MessageKey } from './pages/i18n';
import type { DetailItem } from './pages/steps';
import { assetEndpoint } from './routes/assets';
import {
  type Browser,
  csrfValid,
  openBrowser,
  PageError,
  type PageTarget,
  pageErrors,
  pageStatusOf,
  requestLocale,
  sendBarePage,
} from './routes/browser';
import { enterCode, mailCode } from './routes/code-entry';
import { submitDetails } from './routes/details-form';
import { browserKit, type OpenPage, type PageKit } from './routes/page-kit';
import { type LoadPage, type PasskeySignInPaths, passkeySignInEndpoints } from './routes/passkey-routes';
import { nextStep, owedStep, type StepPaths, signInStepEndpoints } from './routes/sign-in-steps';
import { resolveSite, type SigninOptions, type Site } from './site';

export interface Signin<K extends string = never> {
  site: Site<K>;
  /** Opens (or starts) this browser's flow for a target: cookie, CSRF token, locale, page headers. */
  open(req: Request, res: Response, target: PageTarget): Promise<Browser<K>>;
  /** A form or script post: the flow's CSRF token and this host's Origin, else 403 sessionExpired. */
  guard(b: Browser<K>, req: Request): void;
  /**
   * The host's own endpoints of a target's page (`view`, `form`, `call` at literal paths): `load` opens the
   * page; a post is guarded by `guard`, by default `load` then `guard(b, req)`; a form goes back to the page.
   */
  pages<P extends Browser<K>>(load: OpenPage<P>, guard?: OpenPage<P>): PageKit<P>;
  /**
   * The step endpoints (forms and passkey calls) at the literal paths the host's table names, all under one page
   * path (`{email: '/device/email', ...}`); `load` opens the page's target for a request.
   */
  stepEndpoints(load: LoadPage<K>, paths: StepPaths): Endpoint[];
  /** Passkey sign-in only (an errand's re-authentication), at the literal paths the host's table names. */
  passkeySignInEndpoints(load: LoadPage<K>, paths: PasskeySignInPaths): Endpoint[];
  /** GET: sends the step page owed and returns undefined, or returns the account for the host's final step. */
  nextStep(b: Browser<K>, res: Response): Promise<SignedIn | undefined>;
  /** The step owed without rendering: a host's own post (approve) checks `step === 'done'` first. */
  owedStep(b: Browser<K>): Promise<OwedStep>;
  /**
   * Mails a code to an address and keeps it pending on the flow; false (with a notice) when none was sent. `resend`:
   * the address's code is pending already (refused within EMAIL_CODE_RESEND_SECONDS of it).
   */
  mailCode(b: Browser<K>, req: Request, email: string, resend?: boolean): Promise<boolean>;
  /** The address a typed code proves (the flow rotates), or undefined with a notice. */
  enterCode(b: Browser<K>, req: Request, typed: string): Promise<string | undefined>;
  /** Saves a details form; true when the claim gate passes. */
  submitDetails(b: Browser<K>, req: Request, accountId: string, shown: DetailItem[]): Promise<boolean>;
  locale(req: Request, res: Response): ReturnType<typeof requestLocale>;
  /** A message page when no target could be loaded, at its key's status in the site's page-status table. */
  sendBarePage(req: Request, res: Response, key: MessageKey | K, here?: string): void;
  /** The pages' error mapper (the host table's `pageErrors`): HTML pages, JSON for the passkey calls. */
  pageErrors(): ReturnType<typeof pageErrors>;
  /** GET /assets/{name}: signin.css, signin.js and the WebAuthn browser bundle. */
  assetEndpoint(): Endpoint;
}

export function createSignin<K extends string = never>(options: SigninOptions<K>): Signin<K> {
  const site = resolveSite(options);
  return {
    site,
    open: (req, res, target) => openBrowser(site, req, res, target),
    guard(b, req) {
      if (!csrfValid(site, req, b.flow)) throw new PageError('sessionExpired');
    },
    pages: (load, guard) => browserKit(site, load, guard),
    stepEndpoints: (load, paths) => signInStepEndpoints(site, load, paths),
    passkeySignInEndpoints: (load, paths) => passkeySignInEndpoints(site, load, paths),
    nextStep: (b, res) => nextStep(site, b, res),
    owedStep: (b) => owedStep(site, b),
    mailCode: (b, req, email, resend) => mailCode(site, b, req, email, resend),
    enterCode: (b, req, typed) => enterCode(site, b, req, typed),
    submitDetails: (b, req, accountId, shown) => submitDetails(site, b, req, accountId, shown),
    locale: (req, res) => requestLocale(site, req, res),
    sendBarePage: (req, res, key, here) => sendBarePage(site, req, res, pageStatusOf(site, key), key, here),
    pageErrors: () => pageErrors(site),
    assetEndpoint,
  };
}
