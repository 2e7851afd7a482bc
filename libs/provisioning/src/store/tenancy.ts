// Store of the tenancy tree: organizations, sectors and applications with their rules, claim requirements, client
// keys and OIDC clients. It never decides: provisioning checks the operator's input and asks it to write.
import type { ApplicationModel as Application, Db } from '@svc/db';

type OrgStatus = 'ACTIVE' | 'DISABLED';

/** Runs `write`; a unique-index violation (Prisma P2002: a racing operator won) becomes undefined. */
export async function unlessDuplicate<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'P2002') return undefined;
    throw err;
  }
}

export async function insertOrganization(db: Db, name: string): Promise<string> {
  return (await db.organization.create({ data: { name }, select: { id: true } })).id;
}

export async function organizationExists(db: Db, id: string): Promise<boolean> {
  return (await db.organization.count({ where: { id } })) > 0;
}

export async function setOrganizationStatus(db: Db, id: string, status: OrgStatus): Promise<void> {
  await db.organization.update({ where: { id }, data: { status } });
}

export async function insertSector(db: Db, organizationId: string, name: string): Promise<string> {
  return (await db.sector.create({ data: { organizationId, name }, select: { id: true } })).id;
}

export async function sectorExists(db: Db, id: string): Promise<boolean> {
  return (await db.sector.count({ where: { id } })) > 0;
}

export async function setSectorStatus(db: Db, id: string, status: OrgStatus): Promise<void> {
  await db.sector.update({ where: { id }, data: { status } });
}

export async function findApplication(db: Db, anchor: string): Promise<Application | undefined> {
  return (await db.application.findUnique({ where: { anchor } })) ?? undefined;
}

export interface NewApplication {
  anchor: string;
  sectorId: string;
  names: Record<string, string>;
  defaultLocale: string;
  callbackDomains: string[];
  claimRequirements: object;
}

/** The new application's id; undefined when the anchor is taken (checked first, and by the unique index). */
export async function insertApplication(db: Db, app: NewApplication): Promise<string | undefined> {
  if (await findApplication(db, app.anchor)) return undefined;
  const row = await unlessDuplicate(
    db.application.create({ data: { ...app, status: 'ACTIVE' }, select: { id: true } }),
  );
  return row?.id;
}

export async function setApplicationStatus(
  db: Db,
  id: string,
  status: 'ACTIVE' | 'SUSPENDED' | 'DISABLED',
): Promise<void> {
  await db.application.update({ where: { id }, data: { status } });
}

export interface NewRule {
  applicationId: string;
  method: string;
  platformAppIds: bigint[];
  accessTtl: number | null;
  refreshTtl: number | null;
}

export async function insertRule(db: Db, rule: NewRule): Promise<string> {
  const row = await db.authenticationRule.create({
    data: rule,
    select: { id: true },
  });
  return row.id;
}

export async function insertReturnRule(db: Db, applicationId: string, method: string): Promise<string> {
  const row = await db.returnRule.create({
    data: { applicationId, method },
    select: { id: true },
  });
  return row.id;
}

/** Deletes the application's authentication rule `id`; false when the application has no such rule. */
export async function deleteRule(db: Db, applicationId: string, id: string): Promise<boolean> {
  return (await db.authenticationRule.deleteMany({ where: { id, applicationId } })).count > 0;
}

/** Deletes the application's return rule `id`; false when the application has no such return rule. */
export async function deleteReturnRule(db: Db, applicationId: string, id: string): Promise<boolean> {
  return (await db.returnRule.deleteMany({ where: { id, applicationId } })).count > 0;
}

/** Which kind of rule of the application `id` is, if any (to name the right verb when the wrong one is used). */
export async function ruleKind(
  db: Db,
  applicationId: string,
  id: string,
): Promise<'rule' | 'return rule' | undefined> {
  const [rules, returnRules] = await Promise.all([
    db.authenticationRule.count({ where: { id, applicationId } }),
    db.returnRule.count({ where: { id, applicationId } }),
  ]);
  return rules > 0 ? 'rule' : returnRules > 0 ? 'return rule' : undefined;
}

/** Whether the application has an enabled rule for `method`. */
export async function hasEnabledRule(db: Db, applicationId: string, method: 'OIDC'): Promise<boolean> {
  return (await db.authenticationRule.count({ where: { applicationId, method, enabled: true } })) > 0;
}

/**
 * Read-modify-write of the application's claim requirements under a row lock, so two operators changing different
 * claims both win: `change` gets the stored value and returns the one to write.
 */
export async function changeClaimRequirements<T extends object>(
  db: Db,
  applicationId: string,
  change: (stored: unknown) => T,
): Promise<T> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ claim_requirements: unknown }[]>`
      SELECT claim_requirements FROM applications WHERE id = ${applicationId}::uuid FOR UPDATE`;
    const claims = change(rows[0]?.claim_requirements);
    await tx.application.update({ where: { id: applicationId }, data: { claimRequirements: claims } });
    return claims;
  });
}

export async function insertClientKey(
  db: Db,
  key: { kid: string; applicationId: string; jwk: object },
): Promise<void> {
  await db.clientKey.create({ data: key });
}

/** An application's rules, return rules and client keys, oldest first (the operator's view). */
export async function readApplicationParts(db: Db, applicationId: string) {
  const byAge = { where: { applicationId }, orderBy: { createdAt: 'asc' as const } };
  const [rules, returnRules, clientKeys] = await Promise.all([
    db.authenticationRule.findMany(byAge),
    db.returnRule.findMany(byAge),
    db.clientKey.findMany(byAge),
  ]);
  return { rules, returnRules, clientKeys };
}

export interface NewOidcClient {
  clientId: string;
  secretHash: string | null;
  authMethod: string;
  applicationId: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  responseTypes: string[];
  grantTypes: string[];
  webOrigins: string[];
}

export async function insertOidcClient(db: Db, client: NewOidcClient): Promise<void> {
  await db.oidcClient.create({ data: client });
}
