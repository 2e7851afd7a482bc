// The details form of the sign-in pages (and connect's errands): reads and saves what the person decided and
// typed, then tells them what still blocks the application's claim gate.
import type { Request } from 'express';
import { submitDetailsFor } from '../domain/page-steps';
import type { MessageKey } from '../pages/i18n';
import type { DetailItem } from '../pages/steps';
import type { Site } from '../site';
import { appOf, type Browser } from './browser';

/**
 * Saves the form for `accountId` from the items the page showed. Returns true when every value was valid and the
 * claim gate no longer blocks; otherwise sets a notice naming the claims in the way.
 */
export async function submitDetails<K extends string>(
  site: Site<K>,
  b: Browser<K>,
  req: Request,
  accountId: string,
  shown: DetailItem[],
): Promise<boolean> {
  const problems = await submitDetailsFor(
    site.ports,
    appOf(b.target),
    accountId,
    req.body as Record<string, unknown>,
    shown,
  );
  const names = (keys: string[]) => keys.map((k) => b.ctx.t(`claim_${k}` as MessageKey)).join(', ');
  if (problems.invalid.length) b.flash('invalidValue', { claims: names(problems.invalid) });
  else if (problems.denied.length)
    b.flash('requiredDenied', { app: b.ctx.appName ?? '', claims: names(problems.denied) });
  else if (problems.missing.length) b.flash('missingData', { claims: names(problems.missing) });
  else return true;
  return false;
}
