// Basic terms: the revision and its documents, content hashes, and the LegalAgreementRequired body (the store of
// revisions and receipts is store/agreements.ts).
import { createHash } from 'node:crypto';
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
  return new ServiceError('LegalAgreementRequired', {
    extra: {
      requiredRevision: terms.revision,
      termsUrl: termsUrl(connectUrl, terms.revision),
      agreement: terms.agreement,
    },
    localized: (locale) => ({ confirmation: agreementConfirmation(terms.revision, locale) }),
  });
}
