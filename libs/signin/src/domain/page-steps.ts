// The rules behind the pages after sign-in, without HTTP: which claims to ask about, validating what the
// person entered, whether the basic terms are owed, and whether the claim gate now passes.

import {
  type AccountProfile,
  type ApplicationContext,
  type CurrentTerms,
  type IssuancePorts,
  loadClaimView,
  profileValues,
} from '@svc/issuance';
import { CLAIM_KEYS, type ClaimKey, type ClaimView, evaluateClaimGate } from '@svc/token-core';
import type { DetailItem } from '../pages/steps';
import { type EditableClaim, PROFILE_COLUMNS, type SigninPorts } from './ports';

const ASKED = new Set(['OPTIONAL', 'REQUIRED', 'SYNTHETIC_FALLBACK']);

/** The account and its claim view under the application (undefined when the account is gone). */
export async function accountAndView(
  ports: Pick<IssuancePorts, 'accounts'>,
  app: ApplicationContext,
  accountId: string,
): Promise<{ account: AccountProfile; view: ClaimView } | undefined> {
  const account = await ports.accounts.loadAccount(accountId);
  if (!account) return undefined;
  const view = await loadClaimView(ports.accounts, account.id, app.id, app.claimRequirements);
  return { account, view };
}

function item(key: ClaimKey, view: ClaimView, account: AccountProfile): DetailItem {
  return {
    key,
    requirement: view[key].requirement,
    state: view[key].state,
    value: profileValues(account)[key] ?? null,
    editable: key !== 'email',
  };
}

/** The consent step: undecided claims, REQUIRED claims not granted, and REQUIRED claims whose data is missing. */
export function consentItems(view: ClaimView, account: AccountProfile): DetailItem[] {
  const values = profileValues(account);
  return CLAIM_KEYS.filter((key) => {
    const { requirement, state } = view[key];
    if (!ASKED.has(requirement)) return false;
    if (state === 'UNKNOWN') return true;
    if (requirement !== 'REQUIRED') return false;
    return state === 'DENIED' || (key !== 'lastName' && !values[key]);
  }).map((key) => item(key, view, account));
}

/** Every claim the application may ask for, so the person can complete data or change consent (errands). */
export function allClaimItems(view: ClaimView, account: AccountProfile): DetailItem[] {
  return CLAIM_KEYS.filter((key) => ASKED.has(view[key].requirement)).map((key) => item(key, view, account));
}

export interface DetailsInput {
  decisions: Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>>;
  values: Partial<Record<EditableClaim, string>>;
  invalid: ClaimKey[];
}

function validValue(key: EditableClaim, raw: string): boolean {
  if (key === 'firstName' || key === 'lastName') return raw.length <= 100 && !/[\p{Cc}<>]/u.test(raw);
  if (raw.length > 2048) return false;
  try {
    return new URL(raw).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Reads consent_<claim> and value_<claim> form fields, only for the claims the page showed. */
export function readDetails(form: Record<string, unknown>, shown: DetailItem[]): DetailsInput {
  const out: DetailsInput = { decisions: {}, values: {}, invalid: [] };
  for (const { key, editable } of shown) {
    const consent = form[`consent_${key}`];
    if (consent === 'GRANTED' || consent === 'DENIED') out.decisions[key] = consent;
    const raw = form[`value_${key}`];
    if (!editable || typeof raw !== 'string' || !raw.trim()) continue;
    const value = raw.trim();
    if (key in PROFILE_COLUMNS && validValue(key as EditableClaim, value))
      out.values[key as EditableClaim] = value;
    else out.invalid.push(key);
  }
  return out;
}

/**
 * Saves a details form for `accountId` from the items the page showed, then tells what still blocks: the values
 * that were invalid (not saved), and the application's claim gate after the save (denied, missing).
 */
export async function submitDetailsFor(
  ports: Pick<SigninPorts, 'accounts' | 'issuance'>,
  app: ApplicationContext,
  accountId: string,
  form: Record<string, unknown>,
  shown: DetailItem[],
): Promise<{ invalid: ClaimKey[]; denied: ClaimKey[]; missing: ClaimKey[] }> {
  const input = readDetails(form, shown);
  await ports.accounts.saveDetails(accountId, app.id, input.decisions, input.values);
  const after = await accountAndView(ports.issuance, app, accountId);
  const problems = after ? gateProblems(after.view, after.account) : { denied: [], missing: [] };
  return { invalid: input.invalid, ...problems };
}

/** The claim gate of the application after the page: what still blocks, by reason. */
export function gateProblems(
  view: ClaimView,
  account: AccountProfile,
): { denied: ClaimKey[]; missing: ClaimKey[] } {
  const gate = evaluateClaimGate(view, profileValues(account));
  if (!gate) return { denied: [], missing: [] };
  const denied = gate.claims.filter((k) => view[k].state !== 'GRANTED');
  return { denied, missing: gate.claims.filter((k) => !denied.includes(k)) };
}

/** The current basic terms when this account has no receipt for them, else undefined. */
export async function termsOwed(
  ports: Pick<IssuancePorts, 'agreements'>,
  accountId: string,
): Promise<CurrentTerms | undefined> {
  const terms = await ports.agreements.currentTerms();
  if (!terms) return undefined;
  return (await ports.agreements.hasCurrentReceipt(accountId, terms)) ? undefined : terms;
}
