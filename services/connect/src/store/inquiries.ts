// Inquiry rows (Prisma): creation, lookup by exposure-key hash, and the conditional realize transition (redeeming
// happens with the session insert, in libs/issuance's INSERT_SESSION_REDEEMING).
import type { Db } from '@svc/db';
import type { TtlLayer } from '@svc/token-core';
import type { RealizeConstraint } from '../domain/email-match';

export type ReturnMethodType = 'CALLBACK' | 'STATUS_POLL' | 'REVEAL';

/** What /establish fixed for an inquiry, stored in its `constraints` column. */
export interface InquiryConstraints {
  returnMethods: ReturnMethodType[];
  callbackUrl?: string;
  realizeConstraints?: RealizeConstraint[];
  ttlLayers: TtlLayer[];
}

export type InquiryState = 'ESTABLISHED' | 'REALIZED' | 'REDEEMED';

export interface InquiryRow {
  id: string;
  applicationId: string;
  exposureKeyHash: string;
  hiddenKeyHash: string;
  confirmationKeyHash: string | null;
  confirmationKeyEnc: string | null;
  state: InquiryState;
  constraints: InquiryConstraints;
  accountId: string | null;
  authMethod: string | null;
  authTime: Date | null;
  authorityVersion: number | null;
  expiresAt: Date;
}

function toRow(r: NonNullable<Awaited<ReturnType<Db['inquiry']['findUnique']>>>): InquiryRow {
  return {
    ...r,
    state: r.state as InquiryState,
    constraints: r.constraints as unknown as InquiryConstraints,
  };
}

export function createInquiryStore(db: Db) {
  return {
    async create(input: {
      applicationId: string;
      exposureKeyHash: string;
      hiddenKeyHash: string;
      constraints: InquiryConstraints;
      expiresAt: Date;
    }): Promise<void> {
      await db.inquiry.create({
        data: { ...input, constraints: input.constraints as object, state: 'ESTABLISHED' },
      });
    },

    async byExposureHash(exposureKeyHash: string): Promise<InquiryRow | undefined> {
      const r = await db.inquiry.findUnique({ where: { exposureKeyHash } });
      return r ? toRow(r) : undefined;
    },

    async byId(id: string): Promise<InquiryRow | undefined> {
      const r = await db.inquiry.findUnique({ where: { id } });
      return r ? toRow(r) : undefined;
    },

    /** ESTABLISHED -> REALIZED, once, while unexpired. False when another request got there first. */
    async realize(
      id: string,
      input: {
        accountId: string;
        authMethod: string;
        authTime: Date;
        authorityVersion: number;
        confirmationKeyHash: string;
        confirmationKeyEnc: string;
      },
      now: Date,
    ): Promise<boolean> {
      const res = await db.inquiry.updateMany({
        where: { id, state: 'ESTABLISHED', expiresAt: { gt: now } },
        data: { ...input, state: 'REALIZED', realizedAt: now },
      });
      return res.count === 1;
    },
  };
}
export type InquiryStore = ReturnType<typeof createInquiryStore>;
