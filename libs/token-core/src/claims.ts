// Claim views: the five-key view of token responses, the /claim-state view, the connect three-key view,
// and the synthetic placeholders that SYNTHETIC_ONLY and SYNTHETIC_FALLBACK emit.
import { createHash } from 'node:crypto';

export const CLAIM_KEYS = ['email', 'firstName', 'lastName', 'staticAvatar', 'animatedAvatar'] as const;
export type ClaimKey = (typeof CLAIM_KEYS)[number];

export const REQUIREMENTS = ['SYNTHETIC_ONLY', 'OFF', 'OPTIONAL', 'REQUIRED', 'SYNTHETIC_FALLBACK'] as const;
export type Requirement = (typeof REQUIREMENTS)[number];

export type ClaimState = 'UNKNOWN' | 'GRANTED' | 'DENIED';

export interface ClaimEntry<R extends string = Requirement> {
  requirement: R;
  state: ClaimState;
}

export type ClaimView = Record<ClaimKey, ClaimEntry>;
export type ClaimRequirements = Record<ClaimKey, Requirement>;
export type ClaimGrants = Partial<Record<ClaimKey, 'GRANTED' | 'DENIED'>>;

/** The /claim-state (OIDC-style) name of each claim. */
export const CLAIM_STATE_NAMES: Record<ClaimKey, string> = {
  email: 'email',
  firstName: 'given_name',
  lastName: 'family_name',
  staticAvatar: 'picture',
  animatedAvatar: 'picture_animated',
};

export const DEFAULT_REQUIREMENTS: ClaimRequirements = {
  email: 'OFF',
  firstName: 'OFF',
  lastName: 'OFF',
  staticAvatar: 'OFF',
  animatedAvatar: 'OFF',
};

export function isClaimKey(v: string): v is ClaimKey {
  return (CLAIM_KEYS as readonly string[]).includes(v);
}

export function isRequirement(v: string): v is Requirement {
  return (REQUIREMENTS as readonly string[]).includes(v);
}

/** Reads a stored requirements object, defaulting every missing or unknown entry to OFF. */
export function normalizeRequirements(raw: unknown): ClaimRequirements {
  const out = { ...DEFAULT_REQUIREMENTS };
  if (raw && typeof raw === 'object') {
    for (const key of CLAIM_KEYS) {
      const v = (raw as Record<string, unknown>)[key];
      if (typeof v === 'string' && isRequirement(v)) out[key] = v;
    }
  }
  return out;
}

export function buildClaimView(requirements: ClaimRequirements, grants: ClaimGrants): ClaimView {
  const view = {} as ClaimView;
  for (const key of CLAIM_KEYS)
    view[key] = { requirement: requirements[key], state: grants[key] ?? 'UNKNOWN' };
  return view;
}

export function toClaimStateView(view: ClaimView): Record<string, ClaimEntry> {
  const out: Record<string, ClaimEntry> = {};
  for (const key of CLAIM_KEYS) out[CLAIM_STATE_NAMES[key]] = view[key];
  return out;
}

export type ConnectRequirement = 'OFF' | 'OPTIONAL' | 'REQUIRED' | 'SYNTHETIC';
export type ConnectClaimView = Record<'email' | 'firstName' | 'lastName', ClaimEntry<ConnectRequirement>>;

/** The connect /refresh view: three keys, both synthetic modes reported as SYNTHETIC. */
export function toConnectClaimView(view: ClaimView): ConnectClaimView {
  const map = (r: Requirement): ConnectRequirement =>
    r === 'SYNTHETIC_ONLY' || r === 'SYNTHETIC_FALLBACK' ? 'SYNTHETIC' : r;
  return {
    email: { requirement: map(view.email.requirement), state: view.email.state },
    firstName: { requirement: map(view.firstName.requirement), state: view.firstName.state },
    lastName: { requirement: map(view.lastName.requirement), state: view.lastName.state },
  };
}

/** Real profile values an account holds, by claim key. */
export type ProfileValues = Partial<Record<ClaimKey, string | null>>;

/** Stable, non-identifying placeholder for a claim, derived from the pairwise subject (never a raw id). */
export function syntheticValue(key: ClaimKey, subject: string, placeholderDomain = 'users.invalid'): string {
  const tag = createHash('sha256').update(`${key}:${subject}`).digest('hex').slice(0, 10);
  switch (key) {
    case 'email':
      return `u-${tag}@${placeholderDomain}`;
    case 'firstName':
      return `User ${tag.slice(0, 6).toUpperCase()}`;
    case 'lastName':
      // A one-word stand-in surname (its own tag, so it does not repeat firstName's), like firstName's placeholder.
      return `Guest-${tag.slice(0, 6).toUpperCase()}`;
    case 'staticAvatar':
      return `https://${placeholderDomain}/avatar/${tag}.png`;
    case 'animatedAvatar':
      return `https://${placeholderDomain}/avatar/${tag}.gif`;
  }
}

/**
 * What the application may see for one claim: the real value when shared, a placeholder in synthetic modes,
 * otherwise nothing. `undefined` means omit the claim.
 */
export function discloseClaim(
  key: ClaimKey,
  entry: ClaimEntry,
  real: string | null | undefined,
  subject: string,
): string | undefined {
  switch (entry.requirement) {
    case 'OFF':
      return undefined;
    case 'SYNTHETIC_ONLY':
      return syntheticValue(key, subject);
    case 'SYNTHETIC_FALLBACK':
      if (entry.state === 'GRANTED' && real) return real;
      // An approved account with no surname shares that it has none: the empty surname is real data, not absent.
      if (entry.state === 'GRANTED' && key === 'lastName') return '';
      return syntheticValue(key, subject);
    case 'OPTIONAL':
    case 'REQUIRED':
      if (entry.state !== 'GRANTED') return undefined;
      // An approved account with no surname discloses an empty surname.
      if (key === 'lastName') return real ?? '';
      return real ?? undefined;
  }
}

export type ClaimGate = {
  reason: 'ClaimConsentRequired' | 'RequiredClaimDataMissing';
  claims: ClaimKey[];
} | null;

/**
 * The claim gate: a REQUIRED claim not granted needs consent; a granted one whose data is absent is missing data
 * (an absent surname is not missing). Synthetic modes never block.
 */
export function evaluateClaimGate(view: ClaimView, values: ProfileValues): ClaimGate {
  const consent: ClaimKey[] = [];
  const missing: ClaimKey[] = [];
  for (const key of CLAIM_KEYS) {
    const entry = view[key];
    if (entry.requirement !== 'REQUIRED') continue;
    if (entry.state !== 'GRANTED') consent.push(key);
    else if (key !== 'lastName' && !values[key]) missing.push(key);
  }
  if (consent.length) return { reason: 'ClaimConsentRequired', claims: [...consent, ...missing] };
  if (missing.length) return { reason: 'RequiredClaimDataMissing', claims: missing };
  return null;
}
