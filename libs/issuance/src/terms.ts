// Basic terms: the current published revision, receipts, content hashes, and the LegalAgreementRequired body.
import { createHash } from 'node:crypto';
import type { Db } from '@svc/db';
import { type Locale, ServiceError } from '@svc/platform';

export const AGREEMENT_LOCALES = ['en-US', 'zh-CN'] as const;
export type AgreementLocale = (typeof AGREEMENT_LOCALES)[number];

export interface AgreementDocumentBody {
  schemaVersion: 1;
  title: string;
  sections: { heading: string; paragraphs: string[]; link?: { label: string; url: string } }[];
}

export interface AgreementLocaleEntry {
  contentSha256: string;
  versionUrl: string;
  document: AgreementDocumentBody;
}

export interface Agreement {
  documentType: 'BASIC_TERMS';
  requiredRevision: number;
  requiredAcceptanceEpoch: number;
  locales: Record<AgreementLocale, AgreementLocaleEntry>;
}

/**
 * contentSha256 is the SHA-256 (lowercase hex) of the document exactly as rendered in the body:
 * the UTF-8 bytes of `JSON.stringify(document)` with members in the published order.
 */
export function contentSha256(document: AgreementDocumentBody): string {
  return createHash('sha256').update(JSON.stringify(document), 'utf8').digest('hex');
}

export interface CurrentTerms {
  revision: number;
  acceptanceEpoch: number;
  agreement: Agreement;
}

export async function currentTerms(db: Db): Promise<CurrentTerms | undefined> {
  const doc = await db.agreementDocument.findFirst({
    where: { documentType: 'BASIC_TERMS' },
    orderBy: { revision: 'desc' },
  });
  if (!doc) return undefined;
  return {
    revision: doc.revision,
    acceptanceEpoch: doc.acceptanceEpoch,
    agreement: doc.body as unknown as Agreement,
  };
}

/**
 * True when the account has accepted the current terms: a receipt at the current acceptance epoch or later (of any
 * revision), or no terms were ever published. A new revision re-asks only when it raises `requiredAcceptanceEpoch`;
 * editorial revisions keep existing acceptances valid.
 */
export async function hasCurrentReceipt(
  db: Db,
  accountId: string,
  terms: CurrentTerms | undefined,
): Promise<boolean> {
  if (!terms) return true;
  const receipt = await db.agreementReceipt.findFirst({
    where: { accountId, documentType: 'BASIC_TERMS', acceptanceEpoch: { gte: terms.acceptanceEpoch } },
    select: { id: true },
  });
  return !!receipt;
}

export async function recordReceipt(
  db: Db,
  accountId: string,
  terms: CurrentTerms,
  channel: string,
  accepted: { locale?: string; contentSha256?: string } = {},
): Promise<void> {
  await db.agreementReceipt.upsert({
    where: {
      accountId_documentType_revision: { accountId, documentType: 'BASIC_TERMS', revision: terms.revision },
    },
    create: {
      accountId,
      documentType: 'BASIC_TERMS',
      revision: terms.revision,
      acceptanceEpoch: terms.acceptanceEpoch,
      locale: accepted.locale,
      contentSha256: accepted.contentSha256,
      channel,
    },
    update: {
      acceptanceEpoch: terms.acceptanceEpoch,
      locale: accepted.locale,
      contentSha256: accepted.contentSha256,
    },
  });
}

export function termsUrl(connectUrl: string, revision: number): string {
  return `${connectUrl}/terms/${revision}`;
}

/** The `confirmation` sentence the client shows for its separate affirmative step, in the request's language. */
export function agreementConfirmation(revision: number, locale: Locale): string {
  return locale === 'zh-CN'
    ? `我已阅读并接受基本条款（第 ${revision} 版）。`
    : `I have read and accept the Basic Terms, revision ${revision}.`;
}

export function legalAgreementRequired(terms: CurrentTerms, connectUrl: string): ServiceError {
  return new ServiceError('LegalAgreementRequired', 403, {
    extra: {
      requiredRevision: terms.revision,
      termsUrl: termsUrl(connectUrl, terms.revision),
      agreement: terms.agreement,
    },
    localized: (locale) => ({ confirmation: agreementConfirmation(terms.revision, locale) }),
  });
}
