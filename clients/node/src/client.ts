// One client object per application: every call an application backend makes, grouped by nothing but its name.
import { connectCalls } from './connect.ts';
import { type ClientOptions, Context } from './context.ts';
import { deviceCalls } from './device.ts';
import { nativeCalls } from './native.ts';
import { type SessionCallOptions, sessionCalls } from './session.ts';

export type SigninClientOptions = ClientOptions & SessionCallOptions;

/**
 * `createSigninClient({ applicationAnchor, connectUrl, sessionUrl, clientKey })`: configure only the hosts you
 * call. Nothing is fetched until you call something.
 */
export function createSigninClient(opts: SigninClientOptions) {
  const ctx = new Context(opts);
  return {
    applicationAnchor: ctx.anchor,
    ...connectCalls(ctx),
    ...sessionCalls(ctx, opts),
    ...nativeCalls(ctx),
    ...deviceCalls(ctx),
  };
}

export type SigninClient = ReturnType<typeof createSigninClient>;
