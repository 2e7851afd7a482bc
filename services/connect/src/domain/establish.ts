// POST /establish as named steps: client-auth -> application -> layers -> constraints -> callback -> inquiry.
import { clientAuthFailure } from '@svc/client-auth';
import { type ApplicationCache, type ApplicationContext, isIssuable } from '@svc/issuance';
import { type Clock, invalidBody, ServiceError } from '@svc/platform';
import type { TtlLayer } from '@svc/token-core';
import type { EstablishRequest } from '../routes/schemas';
import { checkCallbackUrl } from './callback-url';
import { KEY_PREFIX, newKey, sha256Hex } from './keys';
import type { InquiryConstraints, InquiryStore, ReturnMethodType } from './ports';

/** The three establish arrays together, serialized, may not exceed this many UTF-8 bytes. */
export const MAX_CONSTRAINT_BYTES = 65_536;

export const CONNECT_AUTH_METHOD = 'PASSKEY_USERNAMELESS';

export function checkConstraintSize(body: EstablishRequest): void {
  let total = 0;
  for (const arr of [body.authenticationConstraints, body.realizeConstraints, body.returnMethods]) {
    if (arr) total += Buffer.byteLength(JSON.stringify(arr), 'utf8');
  }
  if (total > MAX_CONSTRAINT_BYTES) throw invalidBody('the three constraint arrays exceed 65536 bytes');
}

export function checkApplicationActive(
  app: ApplicationContext | undefined,
): asserts app is ApplicationContext {
  if (!app || !isIssuable(app)) throw new ServiceError('ApplicationNotActive');
}

/** Layer 1: the application must accept usernameless passkeys; constraints can only narrow that. */
export function checkAuthenticationLayer(app: ApplicationContext): void {
  if (!app.authRules.some((r) => r.method === CONNECT_AUTH_METHOD)) throw new ServiceError('Layer1Denied');
}

/**
 * Layer 3: the inquiry's return methods. Requested methods must each be enabled on the application; without a
 * request every enabled method applies except CALLBACK, which needs a URL. None left is a refusal.
 */
export function resolveReturnMethods(
  app: ApplicationContext,
  requested: EstablishRequest['returnMethods'],
): { methods: ReturnMethodType[]; callbackUrl?: string } {
  const enabled = new Set(app.returnRules.map((r) => r.method));
  if (requested) {
    if (requested.some((m) => !enabled.has(m.type))) throw new ServiceError('Layer3Denied');
    const callback = requested.find((m) => m.type === 'CALLBACK');
    const callbackUrl = callback?.type === 'CALLBACK' ? callback.payload.callbackUrl : undefined;
    if (callbackUrl !== undefined && checkCallbackUrl(callbackUrl, app.callbackDomains)) {
      throw invalidBody('callbackUrl is not acceptable');
    }
    return { methods: requested.map((m) => m.type), callbackUrl };
  }
  const methods = (['STATUS_POLL', 'REVEAL'] as const).filter((m) => enabled.has(m));
  if (!methods.length) throw new ServiceError('Layer3Denied');
  return { methods };
}

export function ttlLayersOf(body: EstablishRequest): TtlLayer[] {
  return [...(body.authenticationConstraints ?? []), ...(body.realizeConstraints ?? [])].map((c) => ({
    accessTokenTtlSeconds: c.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: c.refreshTokenTtlSeconds,
  }));
}

export async function establishInquiry(
  deps: { inquiries: InquiryStore; clock: Clock; inquiryTtlSeconds: number },
  app: ApplicationContext,
  body: EstablishRequest,
): Promise<{ applicationAnchor: string; exposureKey: string; hiddenKey: string }> {
  checkApplicationActive(app);
  checkConstraintSize(body);
  checkAuthenticationLayer(app);
  const { methods, callbackUrl } = resolveReturnMethods(app, body.returnMethods);
  const constraints: InquiryConstraints = {
    returnMethods: methods,
    callbackUrl,
    realizeConstraints: body.realizeConstraints?.map((c) => ({
      constraintType: c.constraintType,
      payload: { allowedEmails: c.payload.allowedEmails },
    })),
    ttlLayers: ttlLayersOf(body),
  };
  const exposureKey = newKey(KEY_PREFIX.exposure);
  const hiddenKey = newKey(KEY_PREFIX.hidden);
  await deps.inquiries.create({
    applicationId: app.id,
    exposureKeyHash: sha256Hex(exposureKey),
    hiddenKeyHash: sha256Hex(hiddenKey),
    constraints,
    expiresAt: new Date(deps.clock() + deps.inquiryTtlSeconds * 1000),
  });
  return { applicationAnchor: app.anchor, exposureKey, hiddenKey };
}

/**
 * POST /establish for the application that signed the client-auth JWT: it must be the one the inquiry is for
 * (ClientAuthDenied otherwise, as any client-auth failure), and active.
 */
export async function establishForSigner(
  deps: { inquiries: InquiryStore; apps: ApplicationCache; clock: Clock; inquiryTtlSeconds: number },
  signerAnchor: string,
  body: EstablishRequest,
): Promise<{ applicationAnchor: string; exposureKey: string; hiddenKey: string }> {
  if (body.applicationAnchor !== signerAnchor) throw clientAuthFailure();
  const app = await deps.apps.get(signerAnchor);
  if (!app) throw new ServiceError('ApplicationNotActive');
  return establishInquiry(deps, app, body);
}
