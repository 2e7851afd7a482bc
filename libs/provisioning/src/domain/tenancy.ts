// Organizations, sectors and applications with their rules, claim requirements and client keys.
import { randomBytes } from 'node:crypto';
import { changed, created } from '@svc/audit';
import { keyLifecycle } from '@svc/keyring';
import type { Clock } from '@svc/platform';
import {
  ACCESS_TTL,
  CLAIM_KEYS,
  type ClaimKey,
  isRequirement,
  type Kek,
  normalizeRequirements,
  REFRESH_TTL,
  type Requirement,
} from '@svc/token-core';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';

export const ANCHOR_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const AUTH_METHODS = [
  'PASSKEY_USERNAMELESS',
  'ACCESS_KEY_DIRECT',
  'AGENT_ACCESS_KEY_DIRECT',
  'AUTOMATION_ACCESS_KEY_DIRECT',
  'PUBLIC_KEY_DIRECT',
  'AGENT_PUBLIC_KEY_DIRECT',
  'AUTOMATION_PUBLIC_KEY_DIRECT',
  'PLATFORM_TICKET',
  'DEVICE_CODE',
  'OIDC',
] as const;
export const RETURN_METHODS = ['DEVICE_CODE', 'CALLBACK', 'STATUS_POLL', 'REVEAL'] as const;
const INT64_MAX = 9_223_372_036_854_775_807n;
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export async function createOrg(ports: Uses<'changes'>, name: string) {
  if (!name.trim()) throw new ProvisioningError('--name must not be empty');
  return ports.changes.run(async (tx, audit) => {
    const id = await tx.tenancy.insertOrganization(name);
    audit.record({ action: 'org.create', target: { type: 'organization', id }, changes: created({ name }) });
    return { id };
  });
}

export async function setOrgStatus(ports: Uses<'changes'>, id: string, status: string) {
  if (status !== 'ACTIVE' && status !== 'DISABLED')
    throw new ProvisioningError('--status must be ACTIVE or DISABLED');
  return ports.changes.run(async (tx, audit) => {
    if (!(await tx.tenancy.organizationExists(uuidOrThrow(id, 'organization'))))
      throw new ProvisioningError('organization not found');
    await tx.tenancy.setOrganizationStatus(id, status);
    audit.record({
      action: 'org.set_status',
      target: { type: 'organization', id },
      changes: { status: changed(null, status) },
    });
    return { id, status };
  });
}

export async function createSector(ports: Uses<'changes'>, orgId: string, name: string) {
  if (!name.trim()) throw new ProvisioningError('--name must not be empty');
  return ports.changes.run(async (tx, audit) => {
    if (!(await tx.tenancy.organizationExists(uuidOrThrow(orgId, 'organization'))))
      throw new ProvisioningError('organization not found');
    const id = await tx.tenancy.insertSector(orgId, name);
    audit.record({
      action: 'sector.create',
      target: { type: 'sector', id },
      changes: created({ organizationId: orgId, name }),
    });
    return { id };
  });
}

export async function setSectorStatus(ports: Uses<'changes'>, id: string, status: string) {
  if (status !== 'ACTIVE' && status !== 'DISABLED')
    throw new ProvisioningError('--status must be ACTIVE or DISABLED');
  return ports.changes.run(async (tx, audit) => {
    if (!(await tx.tenancy.sectorExists(uuidOrThrow(id, 'sector'))))
      throw new ProvisioningError('sector not found');
    await tx.tenancy.setSectorStatus(id, status);
    audit.record({
      action: 'sector.set_status',
      target: { type: 'sector', id },
      changes: { status: changed(null, status) },
    });
    return { id, status };
  });
}

export function uuidOrThrow(id: string, what: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new ProvisioningError(`${what} not found`);
  }
  return id;
}

export interface CreateAppInput {
  sectorId: string;
  anchor: string;
  names: Record<string, string>;
  defaultLocale?: string;
  callbackDomains?: string[];
}

/** `clock`: when its first signing key is made (the caller's clock). */
export async function createApp(ports: Uses<'changes'>, kek: Kek, input: CreateAppInput, clock: Clock) {
  if (input.anchor.length < 3 || input.anchor.length > 64 || !ANCHOR_PATTERN.test(input.anchor)) {
    throw new ProvisioningError('--anchor must be kebab-case, 3 to 64 characters, starting with a letter');
  }
  if (Object.keys(input.names).length === 0) throw new ProvisioningError('--name en-US=TEXT is required');
  for (const [locale, text] of Object.entries(input.names)) {
    if (!LOCALE.test(locale) || !text.trim()) throw new ProvisioningError(`invalid --name ${locale}=...`);
  }
  const defaultLocale = input.defaultLocale ?? 'en-US';
  if (!input.names[defaultLocale]) throw new ProvisioningError('--default-locale must have a --name');
  for (const d of input.callbackDomains ?? []) {
    if (!/^(\[::1\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)(:\d{1,5})?$/i.test(d)) {
      throw new ProvisioningError(`invalid --callback-domain ${d}`);
    }
  }
  const callbackDomains = [...new Set((input.callbackDomains ?? []).map((d) => d.toLowerCase()))];
  return ports.changes.run(async (tx, audit) => {
    if (!(await tx.tenancy.sectorExists(uuidOrThrow(input.sectorId, 'sector'))))
      throw new ProvisioningError('sector not found');
    // Two operators racing on one anchor: the unique index decides, the loser gets the same clear refusal.
    const id = await tx.tenancy.insertApplication({
      anchor: input.anchor,
      sectorId: input.sectorId,
      names: input.names,
      defaultLocale,
      callbackDomains,
      claimRequirements: normalizeRequirements({}),
    });
    if (!id) throw new ProvisioningError('an application with this anchor already exists');
    const signingKid = await keyLifecycle.ensureActiveKey(tx.signingKeys, kek, id, new Date(clock()));
    audit.record({
      action: 'app.create',
      target: { type: 'application', id: input.anchor },
      changes: created({
        id,
        sectorId: input.sectorId,
        names: input.names,
        defaultLocale,
        callbackDomains,
        signingKid,
      }),
    });
    return { applicationAnchor: input.anchor };
  });
}

export async function appByAnchor(ports: Uses<'tenancy'>, anchor: string) {
  const app = await ports.tenancy.findApplication(anchor);
  if (!app) throw new ProvisioningError('application not found');
  return app;
}

export async function setAppStatus(ports: Uses<'changes'>, anchor: string, status: string) {
  if (status !== 'ACTIVE' && status !== 'SUSPENDED' && status !== 'DISABLED') {
    throw new ProvisioningError('--status must be ACTIVE, SUSPENDED or DISABLED');
  }
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    await tx.tenancy.setApplicationStatus(app.id, status);
    audit.record({
      action: 'app.set_status',
      target: { type: 'application', id: anchor },
      changes: { status: changed(app.status, status) },
    });
    return { applicationAnchor: anchor, status };
  });
}

function ttlOrThrow(v: number | undefined, bounds: { min: number; max: number }, flag: string) {
  if (v === undefined) return null;
  if (!Number.isInteger(v) || v < bounds.min || v > bounds.max) {
    throw new ProvisioningError(`${flag} must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return v;
}

export async function addRule(
  ports: Uses<'changes'>,
  anchor: string,
  input: { method: string; platformAppIds?: bigint[]; accessTtl?: number; refreshTtl?: number },
) {
  if (!(AUTH_METHODS as readonly string[]).includes(input.method)) {
    throw new ProvisioningError(`--method must be one of ${AUTH_METHODS.join(', ')}`);
  }
  if (input.method !== 'PLATFORM_TICKET' && input.platformAppIds?.length) {
    throw new ProvisioningError('--platform-app-id applies to PLATFORM_TICKET only');
  }
  if (input.method === 'PLATFORM_TICKET' && !input.platformAppIds?.length) {
    throw new ProvisioningError('PLATFORM_TICKET needs at least one --platform-app-id');
  }
  for (const id of input.platformAppIds ?? []) {
    // The spec's platformAppId is an int64 >= 1; PostgreSQL BIGINT holds exactly that range.
    if (id < 1n || id > INT64_MAX)
      throw new ProvisioningError('--platform-app-id must be an integer from 1 to 2^63-1');
  }
  const rule = {
    method: input.method,
    platformAppIds: [...new Set(input.platformAppIds ?? [])],
    accessTtl: ttlOrThrow(input.accessTtl, ACCESS_TTL, '--access-ttl'),
    refreshTtl: ttlOrThrow(input.refreshTtl, REFRESH_TTL, '--refresh-ttl'),
  };
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const ruleId = await tx.tenancy.insertRule({ applicationId: app.id, ...rule });
    audit.record({
      action: 'app.add_rule',
      target: { type: 'application', id: anchor },
      changes: created({ ruleId, ...rule }),
    });
    return { ruleId };
  });
}

export async function addReturnRule(ports: Uses<'changes'>, anchor: string, method: string) {
  if (!(RETURN_METHODS as readonly string[]).includes(method)) {
    throw new ProvisioningError(`--method must be one of ${RETURN_METHODS.join(', ')}`);
  }
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const ruleId = await tx.tenancy.insertReturnRule(app.id, method);
    audit.record({
      action: 'app.add_return_rule',
      target: { type: 'application', id: anchor },
      changes: created({ returnRuleId: ruleId, method }),
    });
    return { ruleId };
  });
}

/**
 * `app remove-rule` and `app remove-return-rule`, the inverses of the add verbs: the rule is deleted (nothing refers
 * to a rule by id; sessions already issued keep their lifetimes). A rule of another application, or one of the other
 * kind, is refused and nothing changes.
 */
export async function removeRule(
  ports: Uses<'changes' | 'tenancy'>,
  anchor: string,
  ruleId: string,
  kind: 'rule' | 'return rule',
) {
  const id = uuidOrThrow(ruleId, kind);
  const app = await ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const removed =
      kind === 'rule'
        ? await tx.tenancy.deleteRule(app.id, id)
        : await tx.tenancy.deleteReturnRule(app.id, id);
    if (!removed) return app;
    audit.record({
      action: kind === 'rule' ? 'app.remove_rule' : 'app.remove_return_rule',
      target: { type: 'application', id: anchor },
      changes: { [kind === 'rule' ? 'ruleId' : 'returnRuleId']: changed(id, null) },
    });
    return undefined;
  });
  if (!app) return { ruleId: id, removed: true };
  const other = await ports.tenancy.ruleKind(app.id, id);
  if (other === 'return rule')
    throw new ProvisioningError(`${id} is a return rule of ${anchor}; remove it with app remove-return-rule`);
  if (other === 'rule')
    throw new ProvisioningError(
      `${id} is an authentication rule of ${anchor}; remove it with app remove-rule`,
    );
  throw new ProvisioningError(`${anchor} has no ${kind} ${id} (app show --app ${anchor} lists its rules)`);
}

export async function setClaims(
  ports: Uses<'changes'>,
  anchor: string,
  changes: Partial<Record<ClaimKey, string>>,
) {
  for (const [key, value] of Object.entries(changes)) {
    if (!(CLAIM_KEYS as readonly string[]).includes(key)) throw new ProvisioningError(`unknown claim ${key}`);
    if (typeof value !== 'string' || !isRequirement(value)) {
      throw new ProvisioningError(
        `--${key} must be SYNTHETIC_ONLY, OFF, OPTIONAL, REQUIRED or SYNTHETIC_FALLBACK`,
      );
    }
  }
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const moved: Record<string, { from: unknown; to: unknown }> = {};
    const claims = await tx.tenancy.changeClaimRequirements(app.id, (stored) => {
      const before = normalizeRequirements(stored);
      const next = { ...before };
      for (const [key, value] of Object.entries(changes)) {
        next[key as ClaimKey] = value as Requirement;
        if (before[key as ClaimKey] !== value) moved[key] = changed(before[key as ClaimKey], value);
      }
      return next;
    });
    audit.record({ action: 'app.set_claims', target: { type: 'application', id: anchor }, changes: moved });
    return { claims };
  });
}

export async function addClientKey(ports: Uses<'changes'>, anchor: string, jwk: unknown) {
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, anchor);
    const x = ed25519PublicX(jwk);
    const kid = `cak_${randomBytes(12).toString('base64url')}`;
    await tx.tenancy.insertClientKey({ kid, applicationId: app.id, jwk: { kty: 'OKP', crv: 'Ed25519', x } });
    audit.record({
      action: 'app.add_client_key',
      target: { type: 'application', id: anchor },
      changes: created({ kid, x }),
    });
    return { kid };
  });
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** Accepts only an Ed25519 public JWK; refuses anything carrying private material. */
export function ed25519PublicX(jwk: unknown): string {
  if (!jwk || typeof jwk !== 'object') throw new ProvisioningError('the JWK file must hold a JSON object');
  const j = jwk as Record<string, unknown>;
  // Checked first so a private key of any type is named as such (and never echoed back).
  if (PRIVATE_JWK_MEMBERS.some((m) => m in j)) {
    throw new ProvisioningError('the JWK holds a private key; register the public half only');
  }
  if (j.kty !== 'OKP' || j.crv !== 'Ed25519' || typeof j.x !== 'string') {
    throw new ProvisioningError('the JWK must be an Ed25519 public key (kty OKP, crv Ed25519)');
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(j.x))
    throw new ProvisioningError('the JWK x member is not a 32-byte Ed25519 key');
  return j.x;
}
