// zod schemas of the connect JSON endpoints (bodies exactly as the spec shows them; unknown members refused).
import { storableText } from '@svc/platform';
import { z } from 'zod';

const ttlOverrides = {
  accessTokenTtlSeconds: z.number().int().min(60).max(604_800).optional(),
  refreshTokenTtlSeconds: z.number().int().min(86_400).max(31_536_000).optional(),
};

const emptyPayload = z.strictObject({});

export const authenticationConstraintSchema = z.strictObject({
  method: z.literal('PASSKEY_USERNAMELESS'),
  payload: emptyPayload,
  ...ttlOverrides,
});

/** An address or glob pattern: no whitespace, one @, at most 320 characters. */
const allowedEmail = z
  .string()
  .min(3)
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/);

export const realizeConstraintSchema = z.strictObject({
  constraintType: z.literal('EMAIL'),
  payload: z.strictObject({
    allowedEmails: z
      .array(allowedEmail)
      .min(1)
      .max(128)
      .refine(
        (list) => new Set(list.map((e) => e.toLowerCase())).size === list.length,
        'allowedEmails must be unique',
      ),
  }),
  ...ttlOverrides,
});

export const returnMethodSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('CALLBACK'),
    payload: z.strictObject({ callbackUrl: storableText().min(1) }),
  }),
  z.strictObject({ type: z.literal('STATUS_POLL'), payload: emptyPayload.optional() }),
  z.strictObject({ type: z.literal('REVEAL'), payload: emptyPayload.optional() }),
]);

export const establishSchema = z.strictObject({
  applicationAnchor: storableText().min(3).max(64),
  authenticationConstraints: z.array(authenticationConstraintSchema).min(1).max(16).optional(),
  realizeConstraints: z.array(realizeConstraintSchema).min(1).max(16).optional(),
  returnMethods: z
    .array(returnMethodSchema)
    .min(1)
    .max(3)
    .refine(
      (list) => new Set(list.map((m) => m.type)).size === list.length,
      'returnMethods types must be unique',
    )
    .optional(),
});
export type EstablishRequest = z.infer<typeof establishSchema>;

const key = storableText().min(1).max(256);

export const redeemSchema = z.strictObject({ exposureKey: key, hiddenKey: key, confirmationKey: key });
export const refreshSchema = z.strictObject({ refreshToken: storableText().min(1).max(8192) });
export const infoSchema = z.strictObject({
  applicationAnchor: storableText().min(3).max(64),
  locale: storableText().min(1).max(64),
});
export const inquiryStatusSchema = z.strictObject({ hiddenKey: key });
