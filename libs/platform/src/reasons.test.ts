// The reason table against the spec's Errors table: every reason the spec names has an answer, with the statuses
// and body shapes the spec fixes; ServiceError takes its status and body shape from the table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Reason, ServiceError } from './errors';
import { REASON_ANSWERS, statusOf } from './reasons';

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

  test('an explicit status still wins (the older form, until throw sites name only the reason)', () => {
    const e = new ServiceError('AuthenticationNotFound', 401, { emptyBody: true });
    expect([e.status, e.body()]).toEqual([401, undefined]);
  });
});
