// What the sign-in pages would still ask of a signed-in person before a client may be answered (the account must
// be usable, the basic terms accepted, every claim the application asks about decided and REQUIRED data present):
// prompt=none answers from this without a page.
import type { ApplicationContext, IssuanceDeps } from '@svc/issuance';
import { accountAndView, consentItems, termsOwed } from '@svc/signin';
import type { OwedStep } from './authorize-decision';

export async function owedStep(
  deps: IssuanceDeps,
  app: ApplicationContext,
  accountId: string,
): Promise<OwedStep> {
  const found = await accountAndView(deps.ports, app, accountId);
  if (found?.account.status !== 'ACTIVE') return 'account-unavailable';
  if (await termsOwed(deps.ports, accountId)) return 'terms';
  if (consentItems(found.view, found.account).length > 0) return 'consent';
  return 'none';
}
