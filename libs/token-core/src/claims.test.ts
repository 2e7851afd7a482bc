import {
  buildClaimView,
  discloseClaim,
  evaluateClaimGate,
  normalizeRequirements,
  syntheticValue,
  toClaimStateView,
  toConnectClaimView,
} from './claims';
import { deriveSectorSubject } from './sector-subject';

const reqs = normalizeRequirements({
  email: 'REQUIRED',
  firstName: 'SYNTHETIC_FALLBACK',
  lastName: 'OPTIONAL',
  staticAvatar: 'SYNTHETIC_ONLY',
  animatedAvatar: 'bogus',
});

describe('claim views', () => {
  it('always has the five keys, unknown state by default, bad requirements read as OFF', () => {
    const view = buildClaimView(reqs, { email: 'GRANTED' });
    expect(Object.keys(view)).toEqual(['email', 'firstName', 'lastName', 'staticAvatar', 'animatedAvatar']);
    expect(view.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(view.lastName).toEqual({ requirement: 'OPTIONAL', state: 'UNKNOWN' });
    expect(view.animatedAvatar).toEqual({ requirement: 'OFF', state: 'UNKNOWN' });
  });

  it('renames keys for /claim-state and folds both synthetic modes into SYNTHETIC for connect', () => {
    const view = buildClaimView(reqs, {});
    expect(Object.keys(toClaimStateView(view))).toEqual([
      'email',
      'given_name',
      'family_name',
      'picture',
      'picture_animated',
    ]);
    const connect = toConnectClaimView(
      buildClaimView(normalizeRequirements({ email: 'SYNTHETIC_ONLY', firstName: 'SYNTHETIC_FALLBACK' }), {}),
    );
    expect(connect).toEqual({
      email: { requirement: 'SYNTHETIC', state: 'UNKNOWN' },
      firstName: { requirement: 'SYNTHETIC', state: 'UNKNOWN' },
      lastName: { requirement: 'OFF', state: 'UNKNOWN' },
    });
  });

  it('discloses real values only when granted and placeholders in synthetic modes', () => {
    const view = buildClaimView(reqs, { firstName: 'GRANTED' });
    expect(discloseClaim('email', view.email, 'a@b.c', 'ss_1')).toBeUndefined();
    expect(discloseClaim('firstName', view.firstName, 'Ada', 'ss_1')).toBe('Ada');
    expect(
      discloseClaim('firstName', { requirement: 'SYNTHETIC_FALLBACK', state: 'DENIED' }, 'Ada', 'ss_1'),
    ).toBe(syntheticValue('firstName', 'ss_1'));
    expect(discloseClaim('staticAvatar', view.staticAvatar, 'https://real/pic.png', 'ss_1')).toMatch(
      /^https:\/\/.*\.png$/,
    );
    expect(discloseClaim('lastName', { requirement: 'REQUIRED', state: 'GRANTED' }, null, 'ss_1')).toBe('');
  });

  it('gives lastName a stand-in surname in synthetic modes, except an approved account with none', () => {
    for (const state of ['UNKNOWN', 'DENIED'] as const) {
      const surname = discloseClaim(
        'lastName',
        { requirement: 'SYNTHETIC_FALLBACK', state },
        'Lovelace',
        'ss_1',
      );
      expect(surname).toBe(syntheticValue('lastName', 'ss_1'));
    }
    expect(syntheticValue('lastName', 'ss_1')).toMatch(/^Guest-[0-9A-F]{6}$/);
    expect(syntheticValue('lastName', 'ss_1')).toBe(syntheticValue('lastName', 'ss_1'));
    expect(syntheticValue('lastName', 'ss_1')).not.toBe(syntheticValue('lastName', 'ss_2'));
    expect(
      discloseClaim('lastName', { requirement: 'SYNTHETIC_ONLY', state: 'GRANTED' }, 'Lovelace', 'ss_1'),
    ).toBe(syntheticValue('lastName', 'ss_1'));
    const granted = { requirement: 'SYNTHETIC_FALLBACK', state: 'GRANTED' } as const;
    expect(discloseClaim('lastName', granted, 'Lovelace', 'ss_1')).toBe('Lovelace');
    expect(discloseClaim('lastName', granted, null, 'ss_1')).toBe('');
    expect(discloseClaim('firstName', granted, null, 'ss_1')).toBe(syntheticValue('firstName', 'ss_1'));
  });

  it('makes placeholders stable per subject and unlinkable across subjects', () => {
    expect(syntheticValue('email', 'ss_a')).toBe(syntheticValue('email', 'ss_a'));
    expect(syntheticValue('email', 'ss_a')).not.toBe(syntheticValue('email', 'ss_b'));
    expect(syntheticValue('email', 'ss_a')).toMatch(/^u-[0-9a-f]{10}@users\.invalid$/);
  });

  it('gates: consent before data, surname never missing, synthetic never blocks', () => {
    const values = { email: null, firstName: 'Ada', lastName: null, staticAvatar: null };
    expect(evaluateClaimGate(buildClaimView(reqs, {}), values)).toEqual({
      reason: 'ClaimConsentRequired',
      claims: ['email'],
    });
    expect(evaluateClaimGate(buildClaimView(reqs, { email: 'DENIED' }), values)?.reason).toBe(
      'ClaimConsentRequired',
    );
    expect(evaluateClaimGate(buildClaimView(reqs, { email: 'GRANTED' }), values)).toEqual({
      reason: 'RequiredClaimDataMissing',
      claims: ['email'],
    });
    expect(
      evaluateClaimGate(buildClaimView(reqs, { email: 'GRANTED' }), { ...values, email: 'a@b.c' }),
    ).toBeNull();
    const surname = buildClaimView(normalizeRequirements({ lastName: 'REQUIRED' }), { lastName: 'GRANTED' });
    expect(evaluateClaimGate(surname, { lastName: null })).toBeNull();
    const synthetic = buildClaimView(
      normalizeRequirements({ email: 'SYNTHETIC_ONLY', firstName: 'SYNTHETIC_FALLBACK' }),
      {},
    );
    expect(evaluateClaimGate(synthetic, {})).toBeNull();
  });
});

describe('sector subjects', () => {
  const base = {
    sectorId: 'sector-1',
    principalKind: 'ACCOUNT' as const,
    principalId: 'acct-1',
    generation: 1,
  };
  it('are stable, opaque, and differ across sectors, principals, kinds and generations', () => {
    const s = deriveSectorSubject('secret', base);
    expect(deriveSectorSubject('secret', base)).toBe(s);
    expect(s).toMatch(/^ss_[A-Za-z0-9_-]{32}$/);
    expect(s).not.toContain('acct-1');
    const others = [
      { ...base, sectorId: 'sector-2' },
      { ...base, principalId: 'acct-2' },
      { ...base, principalKind: 'AGENT' as const },
      { ...base, generation: 2 },
    ].map((i) => deriveSectorSubject('secret', i));
    expect(new Set([s, ...others]).size).toBe(5);
    expect(deriveSectorSubject('other-secret', base)).not.toBe(s);
  });
});
