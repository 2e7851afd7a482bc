// What the signing-key gauges read at scrape time: per scope (an application's anchor, or `oidc`), the age of its
// active key and how many keys its JWK Set publishes (next, active, retiring still inside its publication window).
import type { Db } from '@svc/db';

export interface ScopeKeys {
  scope: string;
  /** Seconds since the active key was activated; null when the scope has no active key. */
  activeAgeSeconds: number | null;
  published: number;
}

export async function readScopeKeys(db: Db, at: Date): Promise<ScopeKeys[]> {
  const rows = await db.$queryRaw<{ scope: string; age: number | null; published: bigint }[]>`
    SELECT COALESCE(a.anchor, 'oidc') AS scope,
           EXTRACT(EPOCH FROM (${at}::timestamptz - MAX(COALESCE(k.activated_at, k.created_at))
             FILTER (WHERE k.status = 'ACTIVE')))::float8 AS age,
           COUNT(*) FILTER (WHERE k.status IN ('NEXT', 'ACTIVE')
             OR (k.status = 'RETIRING' AND (k.publish_until IS NULL OR k.publish_until > ${at}::timestamptz))) AS published
      FROM signing_keys k LEFT JOIN applications a ON a.id = k.application_id
     WHERE k.status IN ('NEXT', 'ACTIVE', 'RETIRING')
     GROUP BY 1`;
  return rows.map((r) => ({ scope: r.scope, activeAgeSeconds: r.age, published: Number(r.published) }));
}
