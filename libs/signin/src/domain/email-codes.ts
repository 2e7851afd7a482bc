// One-time email codes for sign-up (and errand re-authentication without a passkey): six digits, mailed over
// SMTP, kept only as a hash bound to the address, with attempts limited per code and per client address.
import { randomInt } from 'node:crypto';
import { type Clock, type RateLimiter, ServiceError } from '@svc/platform';
import { formatWait, type Locale } from '../pages/i18n';
import type { Mailer } from './mailer';
import type { FlowStore, PendingCode, SendGap } from './ports';
import { matchesHash, sha256Hex } from './secrets';

export const MAX_CODE_ATTEMPTS = 5;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

export function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : undefined;
}

const codeHash = (email: string, code: string) => sha256Hex(`${email}\u0000${code}`);

export interface CodeLimits {
  /** Sending: per client address and per recipient. */
  sendPerIp: RateLimiter;
  sendPerRecipient: RateLimiter;
  /**
   * The shortest gap between two codes to one recipient (EMAIL_CODE_RESEND_SECONDS): every code marks it, and a
   * resend asked for sooner is refused (TooManyAttempts with Retry-After). In Redis, shared by every replica.
   */
  resendGap?: SendGap;
  /** Guessing: per client address. */
  verify: RateLimiter;
}

const SUBJECT: Record<Locale, string> = {
  'en-US': 'Your sign-in code',
  'zh-CN': '您的登录验证码',
};

/**
 * A code's lifetime in words, as the mail and the code page both state it: "10 minutes" / "10分钟", and seconds
 * under two minutes ("90 seconds"), never rounded down to less than the code lives.
 */
export function codeLifetime(locale: Locale, ttlSeconds: number): string {
  return formatWait(locale, ttlSeconds);
}

function body(locale: Locale, code: string, appName: string, lifetime: string): string {
  return locale === 'zh-CN'
    ? `您的验证码是 ${code}，用于登录“${appName}”。验证码将在 ${lifetime}后失效。\n如果这不是您本人的操作，请忽略此邮件。`
    : `Your code is ${code}. Use it to sign in to ${appName}. It expires in ${lifetime}.\nIf you did not ask for it, ignore this message.`;
}

/**
 * Mails a fresh code. A resend (`resend`: "Send a new code" for the address already pending) first claims the
 * address's gap, atomically: too soon after the code before, it is refused before anything is counted or mailed.
 * Every code sent then starts the gap again.
 */
export async function sendCode(
  deps: { mailer: Mailer; limits: CodeLimits; ttlSeconds: number; clock: Clock },
  input: { email: string; clientIp: string; locale: Locale; appName: string; resend?: boolean },
): Promise<PendingCode> {
  const gap = deps.limits.resendGap;
  if (gap && input.resend) {
    const left = await gap.claim(input.email);
    if (left !== undefined)
      throw new ServiceError('TooManyAttempts', {
        headers: { 'Retry-After': String(Math.ceil(left / 1000)) },
      });
  }
  await deps.limits.sendPerIp.consume(input.clientIp);
  await deps.limits.sendPerRecipient.consume(input.email);
  if (gap && !input.resend) await gap.mark(input.email);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await deps.mailer.send({
    to: input.email,
    subject: SUBJECT[input.locale],
    text: body(input.locale, code, input.appName, codeLifetime(input.locale, deps.ttlSeconds)),
  });
  return {
    email: input.email,
    codeHash: codeHash(input.email, code),
    expiresAt: deps.clock() + deps.ttlSeconds * 1000,
  };
}

/**
 * Mails a fresh code (sendCode) and keeps it pending on the flow's target (its hash in a single-use record with a
 * guess counter); false when the flow identifier is gone (rotated away or expired).
 */
export async function mailCodeToFlow(
  deps: Parameters<typeof sendCode>[0] & { flows: Pick<FlowStore, 'putCode'> },
  flow: { flowId: string; targetKey: string },
  input: Parameters<typeof sendCode>[1],
): Promise<boolean> {
  const code = await sendCode(deps, input);
  return deps.flows.putCode(flow.flowId, flow.targetKey, code);
}

export type CodeCheck = { result: 'ok'; email: string } | { result: 'wrong' | 'expired' | 'exhausted' };

/** Where a pending code lives: each guess is counted atomically before comparing; a match is consumed once. */
export interface PendingCodes {
  guess(max: number): Promise<{ attempt: number; value: string; code: PendingCode } | undefined>;
  consume(value: string): Promise<boolean>;
  drop(): Promise<void>;
}

/**
 * Checks a typed code. The guess is counted first (atomically, whatever the concurrency), so exactly
 * MAX_CODE_ATTEMPTS guesses are ever compared against one code; the hash is compared in constant time and a
 * right code is consumed by exactly one request.
 */
export async function checkCode(
  deps: { limits: CodeLimits; clock: Clock; codes: PendingCodes },
  typed: string,
  clientIp: string,
): Promise<CodeCheck> {
  await deps.limits.verify.consume(clientIp);
  const guess = await deps.codes.guess(MAX_CODE_ATTEMPTS);
  if (!guess) return { result: 'exhausted' };
  const { code: pending, attempt, value } = guess;
  if (pending.expiresAt <= deps.clock()) return { result: 'expired' };
  const code = typed.replace(/\s+/g, '');
  const right = /^\d{6}$/.test(code) && matchesHash(`${pending.email}\u0000${code}`, pending.codeHash);
  if (!right) return { result: attempt >= MAX_CODE_ATTEMPTS ? 'exhausted' : 'wrong' };
  // The last allowed guess already removed the code (no later guess can reach it); earlier ones consume it.
  if (attempt >= MAX_CODE_ATTEMPTS || (await deps.codes.consume(value)))
    return { result: 'ok', email: pending.email };
  return { result: 'exhausted' };
}
