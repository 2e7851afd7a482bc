// zod schemas of the page bodies and queries: the form posts (every value one string), the passkey JSON calls (the
// WebAuthn response shapes @simplewebauthn/server reads) and the query of a page a person opens. A body or query
// that does not fit is 400, never a 500.
import {
  type EndpointDoc,
  LOCALES,
  PasskeyCreationOptions,
  PasskeyNext,
  PasskeyRequestOptions,
  queryParams,
} from '@svc/platform';
import { z } from 'zod';

/**
 * The query of a sign-in page a person opens (a GET): `lang` picks its language, and is remembered in a cookie
 * (browser.ts). A value naming no locale we have (`fr`, a repeat, an over-long one) is ignored, not refused: the
 * page falls back to the remembered or the browser's language, as the spec's locales fall back, so a link an
 * application built with a language we lack still opens the sign-in. A page's own parameters extend it.
 */
export const pageQuery = queryParams({
  lang: z
    .enum(LOCALES)
    .optional()
    .catch(undefined)
    .describe('The page language (remembered in a cookie); a value naming no locale is ignored.'),
});

/** base64url without padding, as WebAuthn JSON carries binary fields. */
const b64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/);

const field = z.string().max(4096);

/** Every form: at most 50 fields, each a single string (the body reader refuses a repeated field). */
export const anyForm = z.record(z.string().max(128), field);

/** A page form: `shape`'s fields, every other field a bounded string too (a mismatch is 400 badForm). */
export const pageForm = <T extends z.ZodRawShape>(shape: T) =>
  z
    .object(shape)
    .catchall(field)
    .refine((form) => Object.keys(form).every((name) => name.length <= 128), 'a field name is too long');

export const plainForm = pageForm({ _csrf: field });
export const emailForm = pageForm({ _csrf: field, email: z.string().max(320) });
export const codeForm = pageForm({ _csrf: field, code: z.string().max(32) });
export const termsForm = pageForm({
  _csrf: field,
  revision: z.string().max(16),
  accept: z.string().max(16).optional(),
  locale: z.string().max(16).optional(),
});
/** The details form: `_csrf` and the claims shown (every field is kept for `readDetails`). */
export const detailsForm = pageForm({ _csrf: field });

/** The options calls take an empty object. */
export const optionsBody = z.strictObject({});

/** A WebAuthn credential as JSON (what the page script posts), with its ceremony's `response` fields. */
const publicKeyCredential = <T extends z.ZodRawShape>(response: T) =>
  z.object({
    id: b64url(1366).min(1),
    rawId: b64url(1366).min(1),
    type: z.literal('public-key'),
    response: z.object({ clientDataJSON: b64url(16_384).min(1), ...response }),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults: z.record(z.string(), z.unknown()),
  });

export const authenticationBody = publicKeyCredential({
  authenticatorData: b64url(16_384).min(1),
  signature: b64url(2048).min(1),
  userHandle: b64url(128).optional(),
});

export const registrationBody = publicKeyCredential({
  attestationObject: b64url(16_384).min(1),
  authenticatorData: b64url(16_384).optional(),
  transports: z.array(z.string().max(32)).max(8).optional(),
  publicKeyAlgorithm: z.number().int().optional(),
  publicKey: b64url(4096).optional(),
});

/** Each passkey call of a page script (the page kit's `call`): its body schema and its answer's wire shape. */
export const passkeyCalls = {
  authenticationOptions: { schema: optionsBody, doc: { answers: [{ schema: PasskeyRequestOptions }] } },
  authentication: { schema: authenticationBody, doc: { answers: [{ schema: PasskeyNext }] } },
  registrationOptions: { schema: optionsBody, doc: { answers: [{ schema: PasskeyCreationOptions }] } },
  registration: { schema: registrationBody, doc: { answers: [{ schema: PasskeyNext }] } },
} as const satisfies Record<string, { schema: unknown; doc: EndpointDoc }>;
