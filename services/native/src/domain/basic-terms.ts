// The basic-terms step of platform-ticket sign-in: a native client shows the full agreement, obtains the user's
// confirmation, and retries with `agreementAcceptance` bound to the revision, locale and content hash it showed.
import {
  type AgreementLocale,
  type IssuanceDeps,
  type IssueRead,
  legalAgreementRequired,
} from '@svc/issuance';
import { ServiceError } from '@svc/platform';

export interface AgreementAcceptance {
  revision: number;
  locale: AgreementLocale;
  contentSha256: string;
  confirmed: boolean;
}

export const RECEIPT_CHANNEL = 'PLATFORM_TICKET';

/**
 * The issue read once the account holds the current receipt (recording one from a valid acceptance first; the read
 * tells whether it holds one and against which terms). Without an acceptance, or with `confirmed: false`, the answer
 * is LegalAgreementRequired with the full agreement; an acceptance of another revision or of content other than the
 * current one is LegalAgreementRevisionMismatch.
 */
export async function settleBasicTerms(
  deps: Pick<IssuanceDeps, 'ports' | 'connectUrl'>,
  accountId: string,
  read: IssueRead,
  acceptance: AgreementAcceptance | undefined,
): Promise<IssueRead> {
  const { terms } = read;
  if (!terms || read.snapshot.hasReceipt) return read;
  if (!acceptance?.confirmed) throw legalAgreementRequired(terms, deps.connectUrl);
  const shown = terms.agreement.locales[acceptance.locale];
  if (acceptance.revision !== terms.revision || !shown || shown.contentSha256 !== acceptance.contentSha256) {
    throw new ServiceError('LegalAgreementRevisionMismatch');
  }
  await deps.ports.agreements.recordReceipt(accountId, terms, RECEIPT_CHANNEL, {
    locale: acceptance.locale,
    contentSha256: acceptance.contentSha256,
  });
  return { ...read, snapshot: { ...read.snapshot, hasReceipt: true } };
}
