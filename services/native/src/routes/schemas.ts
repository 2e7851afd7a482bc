// Request schemas of the native host (zod). Structure (object, known members only, member types) failing is
// InvalidBody; the formats with their own reasons (access-key identifier and secret, platform ticket) are
// checked after, by the routes.
import { storableText } from '@svc/platform';
import { z } from 'zod';

const ANCHOR = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const anchorSchema = storableText().min(3).max(64).regex(ANCHOR);

export const accessKeyBody = z.strictObject({
  applicationAnchor: anchorSchema,
  accessKeyIdentifier: storableText(),
  accessKeySecret: storableText(),
});

export const publicKeyBody = z.strictObject({
  applicationAnchor: anchorSchema,
});

export const agreementAcceptanceSchema = z.strictObject({
  revision: z.number().int().min(1),
  locale: z.enum(['en-US', 'zh-CN']),
  contentSha256: storableText().regex(/^[0-9a-f]{64}$/),
  confirmed: z.boolean(),
});

export const platformTicketBody = z.strictObject({
  applicationAnchor: anchorSchema,
  platformTicketHex: storableText(),
  // int64 (1..2^63-1) as an integer or a decimal string; the route reads the exact value (`positiveInt64Member`).
  platformAppId: z.union([z.number(), z.string().max(32)]),
  agreementAcceptance: agreementAcceptanceSchema.optional(),
});

export const PLATFORM_TICKET_HEX = /^(?:[0-9a-fA-F]{2}){1,2560}$/;

export const errandBody = z.strictObject({
  accessToken: storableText().min(1).max(8192),
});
