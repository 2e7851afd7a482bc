// Platform links: a verified game-platform user id belongs to exactly one account per platform. The first
// sign-in creates the account and the link together; replicas racing on the same user id converge on one row
// through the unique (platform, platform_user_id) constraint.
import type { Db } from '@svc/db';
import type { LinkedAccount, PlatformLinkStore } from '../domain/ports';

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === 'P2002';
}

export function createPlatformLinkStore(db: Db): PlatformLinkStore {
  const find = (platform: string, platformUserId: string) =>
    db.platformLink.findUnique({
      where: { platform_platformUserId: { platform, platformUserId } },
      select: { accountId: true },
    });

  return {
    async findOrCreate(platform: string, platformUserId: string): Promise<LinkedAccount> {
      const existing = await find(platform, platformUserId);
      if (existing) return { accountId: existing.accountId, created: false };
      try {
        const accountId = await db.$transaction(async (tx) => {
          const account = await tx.account.create({ data: {}, select: { id: true } });
          await tx.platformLink.create({ data: { platform, platformUserId, accountId: account.id } });
          return account.id;
        });
        return { accountId, created: true };
      } catch (err) {
        // Another replica linked the same user first: its transaction won, ours (and its account) rolled back.
        if (!isUniqueViolation(err)) throw err;
        const winner = await find(platform, platformUserId);
        if (!winner) throw err;
        return { accountId: winner.accountId, created: false };
      }
    },
  };
}
