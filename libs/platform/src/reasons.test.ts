// The reason table against the spec's Errors table: every reason the spec names has an answer, with the statuses
// and body shapes the spec fixes; ServiceError takes its status and body shape from the table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Reason, ServiceError } from './errors';
import { ENDPOINT_ANSWERS, REASON_ANSWERS, statusOf } from './reasons';

const SPEC = path.resolve(__dirname, '../../../../shared/spec/interface-spec.md');

/** The spec's `## Errors` section, up to the next section. */
function errorsSection(): string {
  const text = readFileSync(SPEC, 'utf8');
  const start = text.indexOf('\n## Errors\n');
  expect(start).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Rows of the Endpoint | Reason | Condition table, with the reasons of each row (names, not prose). */
function specRows(): { endpoint: string; reasons: string[]; condition: string }[] {
  return errorsSection()
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Endpoint') && !line.startsWith('|---'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => cells.length === 5)
    .map(([, endpoint, reasons, condition]) => ({
      endpoint: endpoint!,
      reasons: reasons!
        .split(',')
        .map((s) => s.trim())
        .filter((s) => /^[A-Z][A-Za-z0-9]+$/.test(s)),
      condition: condition!,
    }))
    .filter((row) => !['error', 'Limit'].includes(row.endpoint));
}

const known = (reason: string): reason is Reason => Object.hasOwn(REASON_ANSWERS, reason);

describe('REASON_ANSWERS against the spec', () => {
  const rows = specRows();
  const specReasons = new Set(rows.flatMap((r) => r.reasons));

  test('the Errors table was read (it names over thirty reasons)', () => {
    expect(specReasons.size).toBeGreaterThan(30);
    expect(specReasons).toContain('InquiryAlreadyRedeemed');
  });

  test('every reason the spec names has an answer', () => {
    expect([...specReasons].filter((r) => !known(r))).toEqual([]);
  });

  test('reasons beyond the Errors table are only those the spec describes in prose or the hosts add', () => {
    const beyond = Object.keys(REASON_ANSWERS)
      .filter((r) => !specReasons.has(r))
      .sort();
    expect(beyond).toEqual(
      [
        // The spec's prose: a malformed body, the rate-limited and temporarily unavailable outcomes.
        'InvalidBody',
        'TooManyAttempts',
        'TemporarilyUnavailable',
        // Hosts' own: an unknown path; connect's passkey and client-auth refusals; the introspection refusal;
        // native's public-key replay (the spec's "assertion jti already seen"), the terms revision mismatch, and
        // the platform ticket malformed or refused by Steam.
        'NotFound',
        'ClientAuthDenied',
        'AccessTokenInvalid',
        'PublicKeyAssertionReplayed',
        'LegalAgreementRevisionMismatch',
        'InvalidPlatformTicket',
        'PlatformTicketRejected',
      ].sort(),
    );
  });

  test('direct-issue refusals the spec marks (403) answer 403', () => {
    const refusals = rows.filter((r) => r.condition.includes('(403)')).flatMap((r) => r.reasons);
    expect(refusals.length).toBeGreaterThan(10);
    for (const reason of refusals.filter(known)) expect([reason, statusOf(reason)]).toEqual([reason, 403]);
  });

  test('the claim-gate and agreement bodies the spec describes are 403 with their shapes', () => {
    const section = errorsSection();
    const claimGate = /Claim-gate 403 body \(([^)]*)\)/.exec(section)?.[1]?.match(/`(\w+)`/g) ?? [];
    expect(claimGate.length).toBe(2);
    for (const quoted of claimGate) {
      const reason = quoted.slice(1, -1) as Reason;
      expect([reason, REASON_ANSWERS[reason]]).toEqual([reason, { status: 403, body: 'claim-gate' }]);
    }
    expect(section).toContain('`LegalAgreementRequired` 403 body');
    expect(REASON_ANSWERS.LegalAgreementRequired).toEqual({ status: 403, body: 'agreement' });
    // No other reason carries those members.
    const shaped = Object.entries(REASON_ANSWERS).filter(
      ([, a]) => a.body === 'claim-gate' || a.body === 'agreement',
    );
    expect(shaped.map(([reason]) => reason).sort()).toEqual(
      ['ClaimConsentRequired', 'LegalAgreementRequired', 'RequiredClaimDataMissing'].sort(),
    );
  });

  test('every status is a client or dependency failure', () => {
    for (const [reason, { status }] of Object.entries(REASON_ANSWERS)) {
      expect([reason, status >= 400 && status < 600 && status !== 500]).toEqual([reason, true]);
    }
  });
});

describe('ServiceError takes its answer from the table', () => {
  test('a reason alone answers with its status and shape', () => {
    expect(new ServiceError('InquiryExpired').status).toBe(410);
    expect(new ServiceError('AuthorizationArtifactStale').body()).toEqual({
      reason: 'AuthorizationArtifactStale',
    });
    const denied = new ServiceError('ClientAuthDenied', { headers: { 'WWW-Authenticate': 'ClientAuth' } });
    expect([denied.status, denied.body(), denied.headers]).toEqual([
      401,
      undefined,
      { 'WWW-Authenticate': 'ClientAuth' },
    ]);
    const gate = new ServiceError('ClaimConsentRequired', { extra: { claims: {} } });
    expect([gate.status, gate.body()]).toEqual([403, { reason: 'ClaimConsentRequired', claims: {} }]);
  });

  test('an endpoint answers a reason otherwise only where ENDPOINT_ANSWERS says so', () => {
    // The spec's /redeem row: AuthenticationNotFound is an unavailable issuance authority (404) ...
    expect(new ServiceError('AuthenticationNotFound').answerAt({ host: 'connect', path: '/redeem' })).toEqual(
      {
        status: 404,
        body: 'reason',
      },
    );
    // ... while a refused passkey ceremony, on every host that mounts the sign-in steps, is a 401.
    for (const path of [
      '/inquiries/:exposureKey/passkey/authentication',
      '/errands/:errandKey/passkey/registration',
      '/passkey/authentication-options',
    ]) {
      expect([path, new ServiceError('AuthenticationNotFound').answerAt({ path }).status]).toEqual([
        path,
        401,
      ]);
    }
    // Session /refresh's rotation conflict is status-only; connect's /refresh names the reason.
    const raceLost = new ServiceError('RefreshTokenRotationRaceLost');
    expect(raceLost.body('en-US', { host: 'session', path: '/refresh' })).toBeUndefined();
    expect(raceLost.body('en-US', { host: 'connect', path: '/refresh' })).toEqual({
      reason: 'RefreshTokenRotationRaceLost',
    });
    // Native /errand answers without a reason; the same reasons elsewhere keep theirs.
    const disabled = new ServiceError('AccountDisabled');
    expect(disabled.answerAt({ host: 'native', path: '/errand' })).toEqual({ status: 403, body: 'empty' });
    expect(disabled.answerAt({ host: 'native', path: '/direct-issue/access-key' })).toEqual({
      status: 403,
      body: 'reason',
    });
    expect(disabled.answerAt({ host: 'session', path: '/errand' }).body).toBe('reason');
  });

  test('a variant names its condition, not a status', () => {
    const tooLarge = new ServiceError('InvalidBody', { variant: 'tooLarge', message: 'body too large' });
    expect([tooLarge.status, tooLarge.body()]).toEqual([
      413,
      { reason: 'InvalidBody', message: 'body too large' },
    ]);
    expect(new ServiceError('InvalidBody').status).toBe(400);
  });

  test('every per-endpoint answer is a client or dependency failure, for a known reason, with its why', () => {
    for (const e of ENDPOINT_ANSWERS) {
      expect(e.why.length).toBeGreaterThan(10);
      for (const [reason, answer] of Object.entries(e.answers)) {
        expect(known(reason)).toBe(true);
        expect(answer!.status >= 400 && answer!.status < 600 && answer!.status !== 500).toBe(true);
      }
    }
  });

  test('no throw site passes a status: the constructor takes the reason and options only', () => {
    expect(new ServiceError('InquiryExpired', {}).status).toBe(410);
    expect(ServiceError.length).toBe(1);
  });
});
