// The inquiry page's rules: which inquiry an exposure key names and who may sign in for it, what a view of its
// page does (refuse a finished or expired one, run the sign-in steps, realize it once) and how the person returns
// to the application (callback redirect, revealed confirmation key, or the poll). The route renders the outcome.
import type { ApplicationContext } from '@svc/issuance';
import type { Clock } from '@svc/platform';
import type { PageTarget, SignedIn } from '@svc/signin';
import type { Kek } from '@svc/token-core';
import { buildCallbackRedirect } from './callback-url';
import { satisfiesRealizeConstraints } from './email-match';
import { openConfirmationKey, returnsToOriginator } from './inquiry-status';
import { sha256Hex } from './keys';
import type { ConnectPorts, InquiryRow } from './ports';
import { realizeInquiry } from './realize';

const EXPOSURE_KEY = /^iqe_[A-Za-z0-9_-]{43}$/;

type InquiryPorts = Pick<ConnectPorts, 'inquiries' | 'issuance'>;

/**
 * The inquiry an exposure key names and the sign-in target of its pages: its application, the callback origin a
 * form may end up at, the addresses its realize constraints admit, and the originator warning. Undefined for a
 * malformed or unknown key, or an application that is gone.
 */
export async function openInquiry(
  ports: InquiryPorts,
  exposureKey: string,
): Promise<{ inquiry: InquiryRow; target: PageTarget & { app: ApplicationContext } } | undefined> {
  const inquiry = EXPOSURE_KEY.test(exposureKey)
    ? await ports.inquiries.byExposureHash(sha256Hex(exposureKey))
    : undefined;
  if (!inquiry) return undefined;
  const app = await ports.issuance.applications.loadApplication({ id: inquiry.applicationId });
  if (!app) return undefined;
  const { callbackUrl, realizeConstraints } = inquiry.constraints;
  return {
    inquiry,
    target: {
      key: `inquiry:${inquiry.id}`,
      base: `/inquiries/${exposureKey}`,
      app,
      formOrigins: callbackUrl ? [new URL(callbackUrl).origin] : [],
      admitsEmail: (email) => satisfiesRealizeConstraints(email, realizeConstraints),
      warnOriginator: returnsToOriginator(inquiry.constraints),
    },
  };
}

/** How the person returns once the inquiry is realized; `gone` when its confirmation key is not there (410). */
export type InquiryReturn =
  | { to: 'callback'; url: string }
  | { to: 'reveal'; confirmationKey: string }
  | { to: 'poll' }
  | { to: 'gone' };

export function inquiryReturn(kek: Kek, inquiry: InquiryRow, exposureKey: string): InquiryReturn {
  const { returnMethods, callbackUrl } = inquiry.constraints;
  const confirmationKey = openConfirmationKey(kek, inquiry);
  if (!confirmationKey) return { to: 'gone' };
  if (returnMethods.includes('CALLBACK') && callbackUrl)
    return { to: 'callback', url: buildCallbackRedirect(callbackUrl, exposureKey, confirmationKey) };
  if (returnMethods.includes('REVEAL')) return { to: 'reveal', confirmationKey };
  return { to: 'poll' };
}

/** What a view of the inquiry's page does. */
export type InquiryPageOutcome =
  /** Redeemed, realized by another flow, or lost the realization: 410 completed. */
  | { show: 'completed' }
  | { show: 'expired' }
  /** The sign-in steps sent the page of a step still owed. */
  | { show: 'step' }
  /** Realized (by this view when `realizedNow`): the flow is saved, then the return is rendered. */
  | { show: 'return'; realizedNow: boolean; back: InquiryReturn };

/**
 * A view of the inquiry's page for this flow: a redeemed or expired inquiry is refused; a realized one returns
 * only the flow that realized it; otherwise `nextStep` runs the sign-in steps (sending the page owed) and, once
 * every step passed, the inquiry is realized under the authority recorded at sign-in (/redeem issues only while
 * the account still has it).
 */
export async function inquiryPage(
  ports: InquiryPorts,
  values: { kek: Kek; clock: Clock },
  page: { inquiry: InquiryRow; exposureKey: string; realized: boolean },
  nextStep: () => Promise<SignedIn | undefined>,
): Promise<InquiryPageOutcome> {
  const { inquiry, exposureKey } = page;
  if (inquiry.state === 'REDEEMED') return { show: 'completed' };
  if (inquiry.expiresAt.getTime() <= values.clock()) return { show: 'expired' };
  if (inquiry.state === 'REALIZED') {
    if (!page.realized) return { show: 'completed' };
    return { show: 'return', realizedNow: false, back: inquiryReturn(values.kek, inquiry, exposureKey) };
  }
  const signedIn = await nextStep();
  if (!signedIn) return { show: 'step' };
  const key = await realizeInquiry(
    { inquiries: ports.inquiries, kek: values.kek, clock: values.clock },
    inquiry.id,
    { id: signedIn.account.id, authorityVersion: signedIn.authority.version },
    signedIn.authTime,
  );
  if (!key) return { show: 'completed' };
  const realized = (await ports.inquiries.byId(inquiry.id)) ?? inquiry;
  return { show: 'return', realizedNow: true, back: inquiryReturn(values.kek, realized, exposureKey) };
}
