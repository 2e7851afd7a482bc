// Store of basic-terms agreements: the current published revision and the receipts accounts hold for it.
import type { Db } from '@svc/db';
import type { AgreementsPort } from '../domain/ports';
import type { Agreement, CurrentTerms } from '../domain/terms';

async function currentTerms(db: Db): Promise<CurrentTerms | undefined> {
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
async function hasCurrentReceipt(
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

async function recordReceipt(
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

/** One published revision of the basic terms (undefined when there is no such revision). */
async function termsRevision(db: Db, revision: number): Promise<Agreement | undefined> {
  // The column is a 32-bit integer: a larger number names no revision (and is not a query error).
  if (!Number.isInteger(revision) || revision < -0x80000000 || revision > 0x7fffffff) return undefined;
  const doc = await db.agreementDocument.findUnique({
    where: { documentType_revision: { documentType: 'BASIC_TERMS', revision } },
  });
  return doc ? (doc.body as unknown as Agreement) : undefined;
}

export function createAgreementsStore(db: Db): AgreementsPort {
  return {
    currentTerms: () => currentTerms(db),
    hasCurrentReceipt: (accountId, terms) => hasCurrentReceipt(db, accountId, terms),
    recordReceipt: (accountId, terms, channel, accepted) =>
      recordReceipt(db, accountId, terms, channel, accepted),
    termsRevision: (revision) => termsRevision(db, revision),
  };
}
