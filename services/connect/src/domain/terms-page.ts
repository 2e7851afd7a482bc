// The read-only basic-terms page (the LegalAgreementRequired termsUrl): which published revision a path names.
import type { Agreement } from '@svc/issuance';
import type { ConnectPorts } from './ports';

/** The revision `/terms/{revision}` names, if it is an integer and published; else undefined (404). */
export async function termsPageRevision(
  ports: Pick<ConnectPorts, 'termsRevision'>,
  rawRevision: string,
): Promise<{ revision: number; agreement: Agreement } | undefined> {
  const revision = Number(rawRevision);
  const agreement = Number.isInteger(revision) ? await ports.termsRevision(revision) : undefined;
  return agreement && { revision, agreement };
}
