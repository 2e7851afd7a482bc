// The rules of the shared sign-in steps, without HTTP: which address may sign up, accepting the basic terms, the
// consent step's items, and the first step still owed on a target (or who passed them all, for the host's final
// step). The routes (routes/sign-in-steps.ts) render what these decide.
import {
  type AccountProfile,
  type ApplicationContext,
  type CurrentTerms,
  emailDomainOf,
  type HeldAuthority,
} from '@svc/issuance';
import type { ClaimView } from '@svc/token-core';
import type { DetailItem } from '../pages/steps';
import { emailCodeReferences } from './auth-references';
import { normalizeEmail } from './email-codes';
import { accountAndView, consentItems, termsOwed } from './page-steps';
import type { ProvenSignIn } from './passkey-steps';
import type { FlowState, SigninPorts } from './ports';

/** Who passed every step: the host's final step acts for this account. */
export interface SignedIn {
  account: AccountProfile;
  view: ClaimView;
  /** When the person proved themselves in this flow. */
  authTime: Date;
  /** How (RFC 8176 values, domain/auth-references.ts); empty for a flow recorded before these were kept. */
  amr: string[];
  acr?: string;
  /**
   * The account's authority when the person proved themselves (not the account's current one): what the host's
   * final step records, so an issuance after a change of authority is refused in SQL.
   */
  authority: HeldAuthority;
}

/** The first step still owed on a target, or `done` with the signed-in account for the host's final step. */
export type OwedStep =
  | { step: 'signIn' }
  | { step: 'accountUnavailable' }
  | { step: 'constraintMismatch' }
  | { step: 'terms'; terms: CurrentTerms }
  | { step: 'details'; items: DetailItem[] }
  | { step: 'done'; signedIn: SignedIn };

/**
 * Decides the step owed on a target for this flow, without rendering. `app` is asked for only once someone is
 * signed in (a target may not know its application before: the device page before a code is entered).
 */
export async function owedStepOf(
  ports: Pick<SigninPorts, 'issuance'>,
  target: { app: () => ApplicationContext; admitsEmail?: (email: string | null) => boolean },
  flow: FlowState,
  now: number,
): Promise<OwedStep> {
  if (!flow.accountId || !flow.authority) return { step: 'signIn' };
  const found = await accountAndView(ports.issuance, target.app(), flow.accountId);
  if (found?.account.status !== 'ACTIVE') return { step: 'accountUnavailable' };
  const { account, view } = found;
  if (target.admitsEmail && !target.admitsEmail(account.email)) return { step: 'constraintMismatch' };
  const terms = await termsOwed(ports.issuance, account.id);
  if (terms) return { step: 'terms', terms };
  const items = consentItems(view, account);
  if (items.length) return { step: 'details', items };
  return {
    step: 'done',
    signedIn: {
      account,
      view,
      authTime: new Date(flow.authTime ?? now),
      amr: flow.amr ?? [],
      acr: flow.acr,
      authority: flow.authority,
    },
  };
}

/** Why an address typed for sign-up gets no code, or the normalized address to mail it to. */
export type SignUpAddress =
  | { email: string }
  | { refused: 'emailInvalid' }
  | { refused: 'emailNotAllowed' }
  /** A blocked domain cannot sign up (CONTRACTS "Email-domain policy"): no code is mailed, the page says why. */
  | { refused: 'emailDomainBlocked'; domain: string };

export async function signUpAddress(
  ports: Pick<SigninPorts, 'issuance'>,
  typed: string,
  admitsEmail: ((email: string | null) => boolean) | undefined,
): Promise<SignUpAddress> {
  const email = normalizeEmail(typed);
  if (!email) return { refused: 'emailInvalid' };
  if (admitsEmail && !admitsEmail(email)) return { refused: 'emailNotAllowed' };
  if ((await ports.issuance.accounts.emailDomainPolicyOf(email)) === 'BLOCK')
    return { refused: 'emailDomainBlocked', domain: emailDomainOf(email) ?? '' };
  return { email };
}

/**
 * The terms form: a receipt for the current terms when they are owed and the form accepts exactly that revision
 * ('accepted'); 'required' when they are owed and the form did not; 'none' when nothing is owed.
 */
export async function acceptTerms(
  ports: Pick<SigninPorts, 'issuance'>,
  accountId: string,
  form: { accept?: string; revision?: string; locale?: string },
  channel: string,
): Promise<'accepted' | 'required' | 'none'> {
  const terms = await termsOwed(ports.issuance, accountId);
  if (!terms) return 'none';
  if (form.accept !== 'yes' || Number(form.revision) !== terms.revision) return 'required';
  const locale = form.locale === 'zh-CN' ? 'zh-CN' : 'en-US';
  await ports.issuance.agreements.recordReceipt(accountId, terms, channel, {
    locale,
    contentSha256: terms.agreement.locales[locale].contentSha256,
  });
  return 'accepted';
}

/** The consent step's items for a signed-in account (undefined when the account is gone). */
export async function consentItemsFor(
  ports: Pick<SigninPorts, 'issuance'>,
  app: ApplicationContext,
  accountId: string,
): Promise<DetailItem[] | undefined> {
  const found = await accountAndView(ports.issuance, app, accountId);
  return found && consentItems(found.view, found.account);
}

/**
 * Whether an address the flow proved by its code already has an account: then the page continues as a sign-in
 * instead of "Create your passkey" (whose registration would exclude the passkey this device may hold). Asked only
 * after the code proved the address, so it tells the person nothing about an address they do not control.
 */
export async function hasAccount(ports: Pick<SigninPorts, 'accounts'>, email: string): Promise<boolean> {
  return (await ports.accounts.byEmail(email)) !== null;
}

/**
 * A sign-in by the emailed code alone, for an address the flow proved that already has an account (no passkey
 * added: `amr` otp, no `acr`, as an email-code sign-up). Undefined when the address has no account (or it went
 * away), or the target accepts only another account (an errand's).
 */
export async function emailCodeSignIn(
  ports: Pick<SigninPorts, 'accounts' | 'issuance'>,
  email: string,
  allowedAccountId: string | undefined,
  now: number,
): Promise<ProvenSignIn | undefined> {
  const account = await ports.accounts.byEmail(email);
  if (!account || (allowedAccountId && allowedAccountId !== account.id)) return undefined;
  const authority = await ports.issuance.accounts.currentAuthority(account.id);
  if (!authority) return undefined;
  return { accountId: account.id, authTime: now, authority, ...emailCodeReferences() };
}
