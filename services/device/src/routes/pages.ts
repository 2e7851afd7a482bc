// The approval page at {DEVICE_URL}/device (the verification URI): type the user code (case, spaces and hyphens
// ignored; guesses limited per client address and per signed-in account, malformed ones included), then the shared
// sign-in steps of @svc/signin (passkey sign-in, or sign-up by emailed code then passkey; basic terms; consent per
// claim), then the confirmation screen, always: Approve or Deny (final). verificationUriComplete only fills in the
// code. The browser's flow record (key `device`) keeps who signed in and which authorization the code selected.
import type { Endpoint, PageRequest } from '@svc/platform';
import {
  type Browser,
  localizedName,
  PageError,
  pageForm,
  pageQuery,
  plainForm,
  sendPage,
} from '@svc/signin';
import type { ErrorRequestHandler, Response } from 'express';
import { z } from 'zod';
import type { DeviceDeps } from '../deps';
import {
  approveDeviceAuthorization,
  denyDeviceAuthorization,
  enterUserCode,
  type PendingAuthorization,
  selectedAuthorization,
} from '../domain/approval';
import type { DeviceKey } from '../pages/i18n-device';
import type { DevicePageError } from '../pages/page-statuses';
import { confirmView, type DeviceNotice, entryView, outcomeView } from '../pages/views';

interface DevicePage extends Browser<DeviceKey> {
  /** The live pending authorization this browser's typed code selected, if any. */
  authorization?: PendingAuthorization;
}

type SelectedPage = DevicePage & { authorization: PendingAuthorization };

const userCodeForm = pageForm({ _csrf: z.string().max(4096), code: z.string().max(64) });

/** Approve and Deny: the authorization the confirmation screen showed (its id, a hidden field). */
const decisionForm = pageForm({ _csrf: z.string().max(4096), authorization: z.string().max(64) });

/** GET /device: verificationUriComplete's `user_code` (letters, digits, spaces and hyphens) fills in the code. */
const devicePageQuery = pageQuery.extend({
  user_code: z
    .string()
    .max(64)
    .regex(/^[0-9A-Za-z -]*$/)
    .optional()
    .describe('A user code to fill in (verification_uri_complete); it never selects one by itself.'),
});

/**
 * The approval page's endpoints: /device (GET the page, POST a typed code), /device/approve, /device/deny,
 * /device/cancel, the shared sign-in steps under /device and the assets; with the pages' error mapper.
 */
export function devicePages(deps: DeviceDeps): { endpoints: Endpoint[]; pageErrors: ErrorRequestHandler } {
  const { signin } = deps;
  /** This browser's device flow, with the authorization its typed code selected while that is still pending. */
  async function open(req: PageRequest<unknown>, res: Response): Promise<DevicePage> {
    const b: DevicePage = await signin.open(req, res, {
      key: 'device',
      base: '/device',
      formOrigins: [],
      // RFC 8628 section 5.4: the sign-in goes to the device that shows the code, which may not be this one.
      warnOriginator: true,
    });
    const selected = b.flow.selected;
    const found = selected ? await selectedAuthorization(deps, selected) : undefined;
    if (found) {
      b.authorization = found.authorization;
      b.target.app = found.app;
      b.ctx.appName = localizedName(found.app.names, found.app.defaultLocale, b.locale);
    } else if (selected) {
      // Decided, expired or consumed meanwhile: the browser starts over with a code.
      delete b.flow.selected;
      b.flash('requestGone');
    }
    return b;
  }

  /** The sign-in steps and decisions work only on a selected, still pending authorization. */
  async function openSelected(req: PageRequest<unknown>, res: Response): Promise<SelectedPage> {
    const b = await open(req, res);
    if (!b.authorization) {
      await b.save();
      throw new PageError<DevicePageError>('requestGone');
    }
    return b as SelectedPage;
  }

  /** Whether a decision names the authorization the flow has selected; otherwise nothing is decided. */
  function isShown(b: SelectedPage, posted: string): boolean {
    if (posted === b.authorization.id) return true;
    b.flash('codeChanged');
    return false;
  }

  // A post: the flow opened and its CSRF token and Origin checked before the form's schema; then back to /device.
  const page = signin.pages(open);
  const selected = signin.pages(openSelected);

  const endpoints: Endpoint[] = [
    signin.assetEndpoint(),
    page.view('/device', devicePageQuery, async (b, req, res) => {
      const query = req.query.user_code;
      // verificationUriComplete fills in the code; it never selects one by itself (a link must not decide).
      if (!b.authorization || (query !== undefined && query !== b.authorization.userCode)) {
        const notice = b.takeNotice();
        await b.save();
        if (notice?.key === 'approvedIntro')
          return sendPage(
            res,
            b,
            b.ctx.t('approvedHeading', notice.vars),
            outcomeView(b.ctx, 'approvedHeading', notice),
          );
        if (notice?.key === 'deniedIntro')
          return sendPage(
            res,
            b,
            b.ctx.t('deniedHeading', notice.vars),
            outcomeView(b.ctx, 'deniedHeading', notice),
          );
        return sendPage(res, b, b.ctx.t('entryTitle'), entryView(b.ctx, { typed: query ?? '', notice }));
      }
      // The confirmation screen's own notice (a decision refused because the selection changed), which nextStep
      // would otherwise take for a sign-in step's page.
      const pending = b.flow.notice?.key === 'codeChanged' ? b.flow.notice : undefined;
      const signedIn = await signin.nextStep(b, res);
      if (!signedIn) return;
      const view = confirmView(b.ctx, {
        authorization: b.authorization,
        email: signedIn.account.email,
        notice: pending as DeviceNotice | undefined,
      });
      sendPage(res, b, b.ctx.t('confirmHeading'), view);
    }),
    page.form('/device', userCodeForm, async (b, req) => {
      // Every entry counts, right, wrong or malformed, before anything is looked up (enterUserCode).
      const found = await enterUserCode(deps, {
        typed: req.body.code,
        address: req.ip ?? '',
        accountId: b.flow.accountId,
      });
      if (found.kind === 'found') b.flow.selected = found.authorization.id;
      else {
        delete b.flow.selected;
        b.flash(found.kind === 'malformed' ? 'codeMalformed' : 'codeUnknown');
      }
    }),
    selected.form('/device/approve', decisionForm, async (b, req) => {
      if (!isShown(b, req.body.authorization)) return;
      const owed = await signin.owedStep(b);
      // Only from the confirmation screen: every step must have passed (the terms or consent may have changed).
      if (owed.step !== 'done') return;
      const { account, view, authTime, authority, amr, acr } = owed.signedIn;
      const outcome = await approveDeviceAuthorization(deps, b.authorization.id, {
        accountId: account.id,
        // Recorded at sign-in, not read now: /device-token issues only while the account still has it.
        authorityVersion: authority.version,
        authTime,
        view,
        amr,
        acr,
      });
      delete b.flow.selected;
      if (outcome === 'approved') b.flash('approvedIntro', { app: b.ctx.appName ?? '' });
      else b.flash('requestGone');
    }),
    selected.form('/device/deny', decisionForm, async (b, req) => {
      if (!isShown(b, req.body.authorization)) return;
      // Like Approve, only a signed-in person on the flow that entered the code: a browser that merely typed a code
      // read off someone's screen cannot deny their device.
      if ((await signin.owedStep(b)).step === 'signIn') return;
      const outcome = await denyDeviceAuthorization(deps, b.authorization.id);
      delete b.flow.selected;
      if (outcome === 'denied') b.flash('deniedIntro', { app: b.ctx.appName ?? '' });
      else b.flash('requestGone');
    }),
    page.form('/device/cancel', plainForm, async (b) => {
      delete b.flow.selected;
    }),
    ...signin.stepEndpoints(openSelected, {
      email: '/device/email',
      code: '/device/email/code',
      reset: '/device/email/reset',
      resend: '/device/email/resend',
      codeSignIn: '/device/email/sign-in',
      signOut: '/device/sign-out',
      terms: '/device/terms',
      details: '/device/details',
      authenticationOptions: '/device/passkey/authentication-options',
      authentication: '/device/passkey/authentication',
      registrationOptions: '/device/passkey/registration-options',
      registration: '/device/passkey/registration',
    }),
  ];
  return { endpoints, pageErrors: signin.pageErrors() };
}
