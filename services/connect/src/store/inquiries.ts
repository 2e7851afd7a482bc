// Inquiry rows (Prisma): creation, lookup by exposure-key hash, and the conditional realize transition (redeeming
// happens with the session insert, in libs/issuance's INSERT_SESSION_REDEEMING).
import type { Db } from '@svc/db';
import type { InquiryConstraints, InquiryRow, InquiryState, InquiryStore } from '../domain/ports';

function toRow(r: NonNullable<Awaited<ReturnType<Db['inquiry']['findUnique']>>>): InquiryRow {
  return {
    ...r,
    state: r.state as InquiryState,
    constraints: r.constraints as unknown as InquiryConstraints,
  };
}

export function createInquiryStore(db: Db): InquiryStore {
  return {
    async create(input) {
      await db.inquiry.create({
        data: { ...input, constraints: input.constraints as object, state: 'ESTABLISHED' },
      });
    },

    async byExposureHash(exposureKeyHash) {
      const r = await db.inquiry.findUnique({ where: { exposureKeyHash } });
      return r ? toRow(r) : undefined;
    },

    async byId(id) {
      const r = await db.inquiry.findUnique({ where: { id } });
      return r ? toRow(r) : undefined;
    },

    async realize(id, input, now) {
      const res = await db.inquiry.updateMany({
        where: { id, state: 'ESTABLISHED', expiresAt: { gt: now } },
        data: { ...input, state: 'REALIZED', realizedAt: now },
      });
      return res.count === 1;
    },
  };
}
