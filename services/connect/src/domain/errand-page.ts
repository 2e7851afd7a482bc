// The errand pages' rules: which errand a key names and its state, what its page owes the person (the errand's
// account re-authenticated first, by passkey or, without one, by emailed code; then every claim to complete or
// change), and completing it once the details pass. The routes render these outcomes.
import type { ApplicationContext, HeldAuthority } from '@svc/issuance';
import { accountAndView, allClaimItems, type DetailItem } from '@svc/signin';
import { sha256Hex } from './keys';
import type { ConnectPorts, ErrandRow } from './ports';

const ERRAND_KEY = /^ernd_[A-Za-z0-9_-]{43}$/;

export type ErrandState = 'pending' | 'completed' | 'expired';

export function errandState(errand: ErrandRow, now: number): ErrandState {
  if (errand.state === 'COMPLETED') return 'completed';
  return errand.expiresAt.getTime() <= now ? 'expired' : 'pending';
}

type ErrandPorts = Pick<ConnectPorts, 'errands' | 'issuance' | 'accountPage'>;

/** The errand a key names; undefined for a malformed or unknown key. */
export async function errandByKey(ports: ErrandPorts, errandKey: string): Promise<ErrandRow | undefined> {
  return ERRAND_KEY.test(errandKey) ? await ports.errands.byKeyHash(sha256Hex(errandKey)) : undefined;
}

/** The errand poll's answer; undefined when the key names no errand. */
export async function errandStatus(
  ports: ErrandPorts,
  errandKey: string,
  now: number,
): Promise<{ state: ErrandState; expiresAt: string } | undefined> {
  const errand = await errandByKey(ports, errandKey);
  return errand && { state: errandState(errand, now), expiresAt: errand.expiresAt.toISOString() };
}

/** The errand a key names with its application, for its pages; undefined when either is unknown. */
export async function openErrand(
  ports: ErrandPorts,
  errandKey: string,
): Promise<{ errand: ErrandRow; app: ApplicationContext } | undefined> {
  const errand = await errandByKey(ports, errandKey);
  if (!errand) return undefined;
  const app = await ports.issuance.applications.loadApplication({ id: errand.applicationId });
  return app && { errand, app };
}

/** What a view of the errand's page shows. */
export type ErrandPageOutcome =
  /** Completed by this browser's flow: the done message. */
  | { show: 'done' }
  /** Completed elsewhere (410 errandCompleted), or expired (410 expired). */
  | { show: 'completed' }
  | { show: 'expired' }
  /** The errand's account may not sign in (403 accountUnavailable). */
  | { show: 'accountUnavailable' }
  /** Re-authenticate as the errand's account first: its passkey, or an emailed code when it has none. */
  | { show: 'reauth'; hasPasskey: boolean; email: string }
  | { show: 'details'; items: DetailItem[] };

/** Decides a view of the errand's page for this flow (who proved themselves on it, and whether it completed it). */
export async function errandPage(
  ports: ErrandPorts,
  page: { errand: ErrandRow; app: ApplicationContext; flow: { accountId?: string; realized?: boolean } },
  now: number,
): Promise<ErrandPageOutcome> {
  const { errand, app, flow } = page;
  const state = errandState(errand, now);
  if (state === 'completed') return { show: flow.realized ? 'done' : 'completed' };
  if (state === 'expired') return { show: 'expired' };
  const found = await accountAndView(ports.issuance, app, errand.accountId);
  if (found?.account.status !== 'ACTIVE') return { show: 'accountUnavailable' };
  if (flow.accountId !== errand.accountId) {
    const hasPasskey = (await ports.accountPage.passkeys(errand.accountId)).length > 0;
    return { show: 'reauth', hasPasskey, email: found.account.email ?? '' };
  }
  return { show: 'details', items: allClaimItems(found.view, found.account) };
}

/** The address to mail a re-authentication code to: only an account without a passkey re-authenticates by email. */
export async function errandCodeAddress(ports: ErrandPorts, errand: ErrandRow): Promise<string | undefined> {
  const account = await ports.issuance.accounts.loadAccount(errand.accountId);
  const hasPasskey = (await ports.accountPage.passkeys(errand.accountId)).length > 0;
  return account?.email && !hasPasskey ? account.email : undefined;
}

/** Who the flow holds once a right code re-authenticated the errand's account: the account, now, its authority. */
export async function errandReauthenticated(
  ports: ErrandPorts,
  errand: ErrandRow,
  now: number,
): Promise<{ accountId: string; authTime: number; authority: HeldAuthority | undefined }> {
  const authority = await ports.issuance.accounts.currentAuthority(errand.accountId);
  return { accountId: errand.accountId, authTime: now, authority };
}

/**
 * The details form of an errand: nothing changes before the person re-authenticated as the errand's account
 * ('not_reauthenticated'); `submit` saves what the page showed (every claim) and tells whether the claim gate
 * passes; then the errand completes, once ('completed'; 'saved' when the gate still blocks or it completed before).
 */
export async function submitErrandDetails(
  ports: ErrandPorts,
  page: { errand: ErrandRow; app: ApplicationContext; flowAccountId: string | undefined },
  now: number,
  submit: (shown: DetailItem[]) => Promise<boolean>,
): Promise<'not_reauthenticated' | 'accountUnavailable' | 'saved' | 'completed'> {
  const { errand, app } = page;
  if (page.flowAccountId !== errand.accountId) return 'not_reauthenticated';
  const found = await accountAndView(ports.issuance, app, errand.accountId);
  if (!found) return 'accountUnavailable';
  const shown = allClaimItems(found.view, found.account);
  return (await submit(shown)) && (await ports.errands.complete(errand.id, new Date(now)))
    ? 'completed'
    : 'saved';
}
