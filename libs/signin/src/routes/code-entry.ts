// Emailed one-time codes on the sign-in pages: mailing one to an address, and checking the typed code against
// the flow's pending code (counting a wrong guess, dropping an expired or exhausted code; every check counted in
// credential_attempts_total).

import { countCredentialAttempt, countRedisFailure, isDependencyFailure, ServiceError } from '@svc/platform';
import type { Request } from 'express';
import { type CodeCheck, checkCode, mailCodeToFlow } from '../domain/email-codes';
import { formatWait } from '../pages/i18n';
import type { Site } from '../site';
import { type Browser, PageError } from './browser';

/**
 * Mails a fresh code to `email` and keeps it pending on the flow (its hash in a single-use record with a guess
 * counter; a new code replaces the one before, which stops working). A failed delivery, and a code asked for too
 * soon or too often (TooManyAttempts: the resend gap, the per-address and per-recipient counts), become a notice on
 * the same page, naming the wait. True when the code was sent.
 */
export async function mailCode<K extends string>(
  site: Site<K>,
  b: Browser<K>,
  req: Request,
  email: string,
  /** "Send a new code" for the address pending: refused within EMAIL_CODE_RESEND_SECONDS of the code before. */
  resend = false,
): Promise<boolean> {
  const { deps } = site;
  try {
    const kept = await mailCodeToFlow(
      {
        mailer: deps.mailer,
        limits: site.codeLimits,
        ttlSeconds: site.config.emailCodeTtlSeconds,
        clock: deps.clock,
        flows: site.ports.flows,
      },
      { flowId: b.flowId, targetKey: b.target.key },
      { email, clientIp: req.ip ?? '', locale: b.locale, appName: b.ctx.appName ?? '', resend },
    );
    if (!kept) throw new PageError('sessionExpired');
    b.flow.pendingEmail = email;
    return true;
  } catch (err) {
    if (err instanceof PageError) throw err;
    if (err instanceof ServiceError && err.reason === 'TooManyAttempts') {
      const seconds = Number(err.headers?.['Retry-After']);
      b.flash('codeWait', {
        wait: formatWait(b.locale, Number.isInteger(seconds) && seconds > 0 ? seconds : 60),
      });
      return false;
    }
    // Redis (the code's rate limits, the flow's pending code) failing is tolerated here too: counted first.
    if (
      isDependencyFailure(err) ||
      (err instanceof ServiceError && err.reason === 'TemporarilyUnavailable')
    ) {
      countRedisFailure(deps.metrics, 'email_code_send');
    }
    deps.logger.warn({ err: (err as Error).message }, 'code mail failed');
    b.flash('mailFailed');
    return false;
  }
}

/**
 * Checks the typed code, counting the attempt fleet-wide in credential_attempts_total (kind email_code): `accepted`
 * for the right code, `rejected` for a wrong, expired or exhausted one, `limited` when the per-address limit
 * refused it. The per-address and per-code limits cannot see guesses spread over many addresses and flows.
 */
async function checkedCode<K extends string>(
  site: Site<K>,
  b: Browser<K>,
  req: Request,
  typed: string,
): Promise<CodeCheck> {
  const metrics = site.deps.metrics;
  try {
    const check = await checkCode(
      { limits: site.codeLimits, clock: site.deps.clock, codes: b.codes },
      typed,
      req.ip ?? '',
    );
    countCredentialAttempt(metrics, 'email_code', check.result === 'ok' ? 'accepted' : 'rejected');
    return check;
  } catch (err) {
    if (err instanceof ServiceError && err.reason === 'TooManyAttempts')
      countCredentialAttempt(metrics, 'email_code', 'limited');
    throw err;
  }
}

/**
 * Returns the proven address, or undefined with a notice for the page. A right code is consumed, and the flow
 * moves to a fresh identifier (the caller's privilege changes: sign-up or re-authentication).
 */
export async function enterCode<K extends string>(
  site: Site<K>,
  b: Browser<K>,
  req: Request,
  typed: string,
): Promise<string | undefined> {
  if (!b.flow.pendingEmail) return undefined;
  const check = await checkedCode(site, b, req, typed);
  if (check.result === 'ok') {
    delete b.flow.pendingEmail;
    await b.rotate();
    return check.email;
  }
  if (check.result === 'wrong') b.flash('codeWrong');
  else {
    delete b.flow.pendingEmail;
    await b.codes.drop();
    b.flash('codeExpired');
  }
  return undefined;
}
