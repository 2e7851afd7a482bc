// Publishing basic-terms revisions: validates the agreement body of the spec and computes each locale's hash.
import type { Db } from '@svc/db';
import { AGREEMENT_LOCALES, type Agreement, contentSha256 } from '@svc/issuance';
import { z } from 'zod';
import { ProvisioningError } from './errors';

const documentSchema = z.strictObject({
  schemaVersion: z.literal(1),
  title: z.string().min(1),
  sections: z
    .array(
      z.strictObject({
        heading: z.string().min(1),
        paragraphs: z.array(z.string().min(1)).min(1),
        link: z.strictObject({ label: z.string().min(1), url: z.url() }).optional(),
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

/** Publishes the next revision; `versionUrl` defaults to the connect host's terms page for that revision. */
export async function publishTerms(db: Db, raw: unknown, connectUrl: string) {
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join('.') || '(file)').join(', ');
    throw new ProvisioningError(`the terms file is not a valid agreement body: ${where}`);
  }
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('basic-terms'))`;
    const last = await tx.agreementDocument.findFirst({ where: { documentType: 'BASIC_TERMS' }, orderBy: { revision: 'desc' } });
    const revision = (last?.revision ?? 0) + 1;
    const epoch = parsed.data.requiredAcceptanceEpoch ?? 1;
    const locales = {} as Agreement['locales'];
    for (const locale of AGREEMENT_LOCALES) {
      const entry = parsed.data.locales[locale];
      locales[locale] = {
        contentSha256: contentSha256(entry.document),
        versionUrl: entry.versionUrl ?? `${connectUrl}/terms/${revision}?locale=${locale}`,
        document: entry.document,
      };
    }
    const agreement: Agreement = {
      documentType: 'BASIC_TERMS',
      requiredRevision: revision,
      requiredAcceptanceEpoch: epoch,
      locales,
    };
    await tx.agreementDocument.create({
      data: { documentType: 'BASIC_TERMS', revision, acceptanceEpoch: epoch, body: agreement as object },
    });
    return { revision };
  });
}
