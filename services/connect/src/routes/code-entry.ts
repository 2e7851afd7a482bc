// Entry of an emailed one-time code, shared by the inquiry and errand pages: checks the typed code against the
// flow's pending code, counts a wrong guess, drops an expired or exhausted code, and says which address it proved.
import type { Request } from 'express';
import { type CodeLimits, checkCode } from '../domain/email-codes';
import type { Browser } from './browser';

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
