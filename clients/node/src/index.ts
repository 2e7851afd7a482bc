// @signin-service/node: what an application backend needs to sign people in and check their tokens.

export type { JWK } from 'jose';
export * from './client.ts';
export type { InquiryStatus } from './connect.ts';
export type { ClientOptions } from './context.ts';
export { type DeviceLoginOptions, isSafeVerificationUri } from './device.ts';
export {
  createDpopSigner,
  DPOP_ALGS,
  type DpopAlg,
  type DpopFailure,
  type DpopReplayCheck,
  type DpopRequest,
  type DpopSigner,
  memoryReplayCheck,
} from './dpop.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './express.ts';
export type { FetchLike } from './http.ts';
export { MAX_KEY_SET_AGE_SECONDS } from './key-set.ts';
export type { PublicKeyCredential } from './native.ts';
export * from './oidc.ts';
export * from './oidc-logout.ts';
export type { SessionCallOptions } from './session.ts';
export { AUDIENCE, CLIENT_AUTH_TYP, PUBLIC_KEY_ASSERTION_TYP, type SigningKeyInput } from './signing.ts';
export type * from './types.ts';
export * from './verify.ts';
