// When a held sign-in serves a request, and how prompt=none and issuance refusals become authorization errors.
import { authorizeErrorForReason, needsFreshLogin, promptNoneError } from '../src/domain/authorize-decision';

const held = { accountId: 'a', authTime: 1_000 };
const req = (prompt: string[] = [], maxAge?: number) => ({ prompt: new Set(prompt) as never, maxAge });

test('a held sign-in serves a plain request', () => {
  expect(needsFreshLogin(req(), held, 5_000)).toBe(false);
  expect(needsFreshLogin(req(['consent']), held, 5_000)).toBe(false);
});

test('no sign-in, prompt=login and prompt=select_account need a fresh one', () => {
  expect(needsFreshLogin(req(), undefined, 5_000)).toBe(true);
  expect(needsFreshLogin(req(['login']), held, 1_000)).toBe(true);
  expect(needsFreshLogin(req(['select_account']), held, 1_000)).toBe(true);
});

test('max_age: elapsed beyond it forces authentication; 0 always does', () => {
  expect(needsFreshLogin(req([], 60), held, 1_060)).toBe(false);
  expect(needsFreshLogin(req([], 60), held, 1_061)).toBe(true);
  expect(needsFreshLogin(req([], 0), held, 1_000)).toBe(true);
});

test('prompt=none errors', () => {
  expect(promptNoneError(true, 'none')?.error).toBe('login_required');
  expect(promptNoneError(false, 'none')).toBeUndefined();
  expect(promptNoneError(false, 'consent')?.error).toBe('consent_required');
  expect(promptNoneError(false, 'terms')?.error).toBe('interaction_required');
  expect(promptNoneError(false, 'account-unavailable')?.error).toBe('login_required');
});

test.each([
  ['ClaimConsentRequired', 'consent_required'],
  ['RequiredClaimDataMissing', 'consent_required'],
  ['LegalAgreementRequired', 'interaction_required'],
  ['AccountDisabled', 'access_denied'],
  ['EmailDomainBlocked', 'access_denied'],
  ['ApplicationNotActive', 'unauthorized_client'],
  ['TemporarilyUnavailable', 'temporarily_unavailable'],
  ['InvalidBody', 'server_error'],
] as const)('%s -> %s', (reason, error) => {
  expect(authorizeErrorForReason(reason).error).toBe(error);
});
