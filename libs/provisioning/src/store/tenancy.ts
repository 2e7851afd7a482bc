// Store of the tenancy tree: organizations, sectors and applications with their rules, claim requirements, client
// keys and OIDC clients. It never decides: provisioning checks the operator's input and asks it to write.
import type { Db } from '@svc/db';
import type { TenancyStore } from '../domain/ports';

/** Runs `write`; a unique-index violation (Prisma P2002: a racing operator won) becomes undefined. */
export async function unlessDuplicate<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'P2002') return undefined;
    throw err;
  }
}

export function createTenancyStore(db: Db): TenancyStore {
  const findApplication = async (anchor: string) =>
    (await db.application.findUnique({ where: { anchor } })) ?? undefined;
  return {
    async insertOrganization(name) {
      return (await db.organization.create({ data: { name }, select: { id: true } })).id;
    },
    async organizationExists(id) {
      return (await db.organization.count({ where: { id } })) > 0;
    },
    async setOrganizationStatus(id, status) {
      await db.organization.update({ where: { id }, data: { status } });
    },
    async insertSector(organizationId, name) {
      return (await db.sector.create({ data: { organizationId, name }, select: { id: true } })).id;
    },
    async sectorExists(id) {
      return (await db.sector.count({ where: { id } })) > 0;
    },
    async setSectorStatus(id, status) {
      await db.sector.update({ where: { id }, data: { status } });
    },
    findApplication,
    async insertApplication(app) {
      if (await findApplication(app.anchor)) return undefined;
      const row = await unlessDuplicate(
        db.application.create({ data: { ...app, status: 'ACTIVE' }, select: { id: true } }),
      );
      return row?.id;
    },
    async setApplicationStatus(id, status) {
      await db.application.update({ where: { id }, data: { status } });
    },
    async insertRule(rule) {
      const row = await db.authenticationRule.create({ data: rule, select: { id: true } });
      return row.id;
    },
    async insertReturnRule(applicationId, method) {
      const row = await db.returnRule.create({ data: { applicationId, method }, select: { id: true } });
      return row.id;
    },
    async deleteRule(applicationId, id) {
      return (await db.authenticationRule.deleteMany({ where: { id, applicationId } })).count > 0;
    },
    async deleteReturnRule(applicationId, id) {
      return (await db.returnRule.deleteMany({ where: { id, applicationId } })).count > 0;
    },
    async ruleKind(applicationId, id) {
      const [rules, returnRules] = await Promise.all([
        db.authenticationRule.count({ where: { id, applicationId } }),
        db.returnRule.count({ where: { id, applicationId } }),
      ]);
      return rules > 0 ? 'rule' : returnRules > 0 ? 'return rule' : undefined;
    },
    async hasEnabledRule(applicationId, method) {
      return (await db.authenticationRule.count({ where: { applicationId, method, enabled: true } })) > 0;
    },
    changeClaimRequirements(applicationId, change) {
      return db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<{ claim_requirements: unknown }[]>`
          SELECT claim_requirements FROM applications WHERE id = ${applicationId}::uuid FOR UPDATE`;
        const claims = change(rows[0]?.claim_requirements);
        await tx.application.update({ where: { id: applicationId }, data: { claimRequirements: claims } });
        return claims;
      });
    },
    async insertClientKey(key) {
      await db.clientKey.create({ data: key });
    },
    async readApplicationParts(applicationId) {
      const byAge = { where: { applicationId }, orderBy: { createdAt: 'asc' as const } };
      const [rules, returnRules, clientKeys] = await Promise.all([
        db.authenticationRule.findMany(byAge),
        db.returnRule.findMany(byAge),
        db.clientKey.findMany(byAge),
      ]);
      return { rules, returnRules, clientKeys };
    },
    async insertOidcClient(client) {
      await db.oidcClient.create({ data: client });
    },
  };
}
