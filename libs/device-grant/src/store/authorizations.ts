// PostgreSQL statements of device authorizations: insert at /device-authorize (a live user code is unique by a
// partial index, so a collision inserts nothing), the reads of /device-token and of the approval page, and the
// decisions. The consuming move APPROVED -> CONSUMED is not here: it happens in the statement that inserts the
// session (libs/issuance `redeemsDeviceAuthorization`), so the authorization is consumed exactly when a session
// exists for it.
import { type Db, gatherOn, runPrepared, type Statement, unnestParams } from '@svc/db';
import type { AuthorizationRow, AuthorizationStore, NewAuthorization, PendingRow } from '../domain/ports';

const INSERT: Statement = {
  name: 'device_insert_v2',
  text: `INSERT INTO device_authorizations (device_code_hash, user_code, application_id, interval, created_at,
      expires_at, device_address, device_user_agent, oidc_client_id, scope)
    SELECT * FROM ${unnestParams(['text', 'text', 'uuid', 'int', 'timestamptz', 'timestamptz', 'text', 'text', 'uuid', 'text'])}
    ON CONFLICT DO NOTHING
    RETURNING device_code_hash`,
};

/**
 * Inserts authorizations gathered per event-loop turn (one round trip for the /device-authorize calls that arrived
 * together); each answers whether its row went in. A row whose live user code is taken (or, never in practice,
 * whose device-code hash is) inserts nothing and answers false.
 */
const insertGathered = gatherOn(async (db, rows: NewAuthorization[]): Promise<boolean[]> => {
  const inserted = await runPrepared<{ device_code_hash: string }>(db, INSERT, [
    rows.map((r) => r.deviceCodeHash),
    rows.map((r) => r.userCode),
    rows.map((r) => r.applicationId),
    rows.map((r) => r.interval),
    rows.map((r) => r.createdAt),
    rows.map((r) => r.expiresAt),
    rows.map((r) => r.deviceAddress),
    rows.map((r) => r.deviceUserAgent),
    rows.map((r) => r.oidcClientId),
    rows.map((r) => r.scope),
  ]);
  const done = new Set(inserted.map((r) => r.device_code_hash));
  return rows.map((r) => done.has(r.deviceCodeHash));
});

const BY_CODE_HASH: Statement = {
  name: 'device_by_code_hash_v2',
  text: `SELECT id, application_id AS "applicationId", state, account_id AS "accountId", interval,
      expires_at AS "expiresAt", auth_method AS "authMethod", auth_time AS "authTime",
      authority_version AS "authorityVersion", oidc_client_id AS "oidcClientId", scope, amr, acr
    FROM device_authorizations WHERE device_code_hash = $1`,
};

const PENDING_COLUMNS = `d.id, d.device_code_hash AS "deviceCodeHash", d.user_code AS "userCode",
  d.application_id AS "applicationId", a.anchor AS "applicationAnchor", d.device_address AS "deviceAddress",
  d.device_user_agent AS "deviceUserAgent", d.created_at AS "createdAt", d.expires_at AS "expiresAt"`;

export function createAuthorizationStore(db: Db): AuthorizationStore {
  return {
    insert: (row) => insertGathered(db, row),
    async byCodeHash(hash) {
      const [row] = await runPrepared<AuthorizationRow>(db, BY_CODE_HASH, [hash]);
      return row;
    },
    async pendingByUserCode(userCode, now) {
      const rows = await db.$queryRawUnsafe<PendingRow[]>(
        `SELECT ${PENDING_COLUMNS} FROM device_authorizations d JOIN applications a ON a.id = d.application_id
          WHERE d.user_code = $1 AND d.state = 'PENDING' AND d.expires_at > $2::timestamptz`,
        userCode,
        now,
      );
      return rows[0];
    },
    async pendingById(id, now) {
      const rows = await db.$queryRawUnsafe<PendingRow[]>(
        `SELECT ${PENDING_COLUMNS} FROM device_authorizations d JOIN applications a ON a.id = d.application_id
          WHERE d.id = $1::uuid AND d.state = 'PENDING' AND d.expires_at > $2::timestamptz`,
        id,
        now,
      );
      return rows[0];
    },
    async approve(id, approval, now) {
      const changed = await db.$executeRawUnsafe(
        `UPDATE device_authorizations SET state = 'APPROVED', account_id = $2::uuid, auth_method = $3,
            auth_time = $4::timestamptz, authority_version = $5::int, consent = $6::jsonb, decided_at = $7::timestamptz,
            amr = $8::text[], acr = $9
          WHERE id = $1::uuid AND state = 'PENDING' AND expires_at > $7::timestamptz`,
        id,
        approval.accountId,
        approval.authMethod,
        approval.authTime,
        approval.authorityVersion,
        approval.consent === null ? null : JSON.stringify(approval.consent),
        now,
        approval.amr,
        approval.acr,
      );
      return changed === 1;
    },
    async deny(id, now, from = ['PENDING']) {
      const changed = await db.$executeRawUnsafe(
        `UPDATE device_authorizations SET state = 'DENIED', decided_at = COALESCE(decided_at, $2::timestamptz)
          WHERE id = $1::uuid AND state = ANY($3::text[])`,
        id,
        now,
        from,
      );
      return changed === 1;
    },
  };
}
