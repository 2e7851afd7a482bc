// Publishing basic-terms revisions: validates the agreement body of the spec and computes each locale's hash.

import { changed } from '@svc/audit';
import {
  AGREEMENT_LOCALES,
  type Agreement,
  type AgreementDocumentBody,
  type AgreementLocale,
  contentSha256,
} from '@svc/issuance';
import { storableText } from '@svc/platform';
import { z } from 'zod';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';

const documentSchema = z.strictObject({
  schemaVersion: z.literal(1),
  title: storableText().min(1),
  sections: z
    .array(
      z.strictObject({
        heading: storableText().min(1),
        paragraphs: z.array(storableText().min(1)).min(1),
        link: z.strictObject({ label: storableText().min(1), url: z.url() }).optional(),
      }),
    )
    .min(1),
});

const localeSchema = z.object({ versionUrl: z.url().optional(), document: documentSchema });

const fileSchema = z.object({
  documentType: z.literal('BASIC_TERMS').optional(),
  requiredAcceptanceEpoch: z.number().int().min(1).optional(),
  locales: z.strictObject({ 'en-US': localeSchema, 'zh-CN': localeSchema }),
});

/**
 * Orders object members the way PostgreSQL JSONB returns them (shorter keys first, then bytewise). The body is
 * stored as JSONB, so hosts render the document in this order; hashing the same order keeps `contentSha256`
 * equal to the SHA-256 of the document exactly as clients receive it.
 */
export function jsonbOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(jsonbOrder) as T;
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => {
    const la = Buffer.byteLength(a);
    const lb = Buffer.byteLength(b);
    return la !== lb ? la - lb : Buffer.compare(Buffer.from(a), Buffer.from(b));
  });
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = jsonbOrder((value as Record<string, unknown>)[k]);
  return out as T;
}

/**
 * Publishes the next revision; `versionUrl` defaults to the connect host's terms page for that revision.
 * Publishing the same documents (and epoch) as the newest revision is a no-op that returns that revision with
 * `unchanged: true`, so re-running a deploy script does not force every account to accept again.
 */
export async function publishTerms(ports: Uses<'changes'>, raw: unknown, connectUrl: string) {
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`)
      .join('; ');
    throw new ProvisioningError(`the terms file is not a valid agreement body: ${where}`);
  }
  const epoch = parsed.data.requiredAcceptanceEpoch ?? 1;
  const documents = {} as Record<AgreementLocale, AgreementDocumentBody>;
  for (const locale of AGREEMENT_LOCALES)
    documents[locale] = jsonbOrder(parsed.data.locales[locale].document);
  return ports.changes.run((tx, audit) =>
    tx.terms.withLock(async (revisions) => {
      const last = await revisions.newest();
      if (
        last &&
        sameAsPublished(
          last.body as unknown as Agreement,
          last.acceptanceEpoch,
          parsed.data,
          documents,
          epoch,
        )
      ) {
        return { revision: last.revision, unchanged: true as const };
      }
      const revision = (last?.revision ?? 0) + 1;
      const locales = {} as Agreement['locales'];
      for (const locale of AGREEMENT_LOCALES) {
        locales[locale] = {
          contentSha256: contentSha256(documents[locale]),
          versionUrl:
            parsed.data.locales[locale].versionUrl ?? `${connectUrl}/terms/${revision}?locale=${locale}`,
          document: documents[locale],
        };
      }
      const agreement: Agreement = {
        documentType: 'BASIC_TERMS',
        requiredRevision: revision,
        requiredAcceptanceEpoch: epoch,
        locales,
      };
      await revisions.insert({ revision, acceptanceEpoch: epoch, body: agreement as object });
      audit.record({
        action: 'terms.publish',
        target: { type: 'basic_terms', id: String(revision) },
        changes: {
          revision: changed(last?.revision ?? null, revision),
          acceptanceEpoch: changed(last?.acceptanceEpoch ?? null, epoch),
          contentSha256: changed(
            null,
            Object.fromEntries(AGREEMENT_LOCALES.map((l) => [l, locales[l].contentSha256])),
          ),
        },
      });
      return { revision };
    }),
  );
}

function sameAsPublished(
  last: Agreement,
  lastEpoch: number,
  file: z.infer<typeof fileSchema>,
  documents: Record<AgreementLocale, AgreementDocumentBody>,
  epoch: number,
): boolean {
  if (lastEpoch !== epoch) return false;
  return AGREEMENT_LOCALES.every((locale) => {
    const prev = last.locales?.[locale];
    if (!prev || prev.contentSha256 !== contentSha256(documents[locale])) return false;
    const url = file.locales[locale].versionUrl;
    return url === undefined || url === prev.versionUrl;
  });
}
