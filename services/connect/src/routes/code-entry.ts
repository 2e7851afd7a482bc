// Emailed one-time codes on the inquiry and errand pages: mailing one to an address, and checking the typed code
// against the flow's pending code (counting a wrong guess, dropping an expired or exhausted code).
import type { Request } from 'express';
import type { ConnectDeps } from '../deps';
import { type CodeLimits, checkCode, sendCode } from '../domain/email-codes';
import type { Browser } from './browser';

/**
 * Mails a fresh code to `email` and keeps it pending on the flow. A failed delivery becomes a notice on the page;
 * a rate limit (TooManyAttempts) goes on to the page's error handler.
 */
export async function mailCode(
  deps: Pick<ConnectDeps, 'mailer' | 'config' | 'now' | 'logger'>,
  limits: CodeLimits,
  b: Browser,
  req: Request,
  email: string,
): Promise<void> {
  try {
    b.flow.pendingEmail = await sendCode(
      { mailer: deps.mailer, limits, ttlSeconds: deps.config.emailCodeTtlSeconds, now: deps.now },
      { email, clientIp: req.ip ?? '', locale: b.locale, appName: b.ctx.appName ?? '' },
    );
  } catch (err) {
    if ((err as { reason?: string }).reason === 'TooManyAttempts') throw err;
    deps.logger.warn({ err: (err as Error).message }, 'code mail failed');
    b.flash('mailFailed');
  }
}

/** Returns the proven address (the pending code is then consumed), or undefined with a notice for the page. */
export async function enterCode(
  deps: { limits: CodeLimits; now: () => Date },
  b: Browser,
  req: Request,
): Promise<string | undefined> {
  const pending = b.flow.pendingEmail;
  if (!pending) return undefined;
  const typed = String((req.body as Record<string, unknown>).code ?? '');
  const result = await checkCode(deps, pending, typed, req.ip ?? '');
  if (result === 'ok') {
    delete b.flow.pendingEmail;
    return pending.email;
  }
  if (result === 'wrong') {
    pending.attempts += 1;
    b.flash('codeWrong');
  } else {
    delete b.flow.pendingEmail;
    b.flash('codeExpired');
  }
  return undefined;
}
