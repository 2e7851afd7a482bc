// The issuance core every host shares: checks, then a new session with its first access and refresh tokens.
import { runPrepared, type Statement } from '@svc/db';
import { ServiceError } from '@svc/platform';
import {
  type ClaimView,
  foldTtls,
  mintAccessToken,
  mintRefreshToken,
  newJti,
  newSid,
  type Signer,
  type TtlLayer,
} from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import { resolveSectorSubject } from './sector-subjects';
import { currentTermsCached, type SnapshotRow, snapshotColumnsSql, toSnapshot } from './snapshot';

export type Principal =
  | { kind: 'ACCOUNT'; accountId: string }
  | { kind: 'AGENT' | 'AUTOMATION'; accountId: string; workloadId: string; workloadGeneration: number };

export interface IssueSessionInput {
  application: ApplicationContext;
  principal: Principal;
  /** The authentication method that admitted the principal (e.g. ACCESS_KEY_DIRECT, PASSKEY_USERNAMELESS). */
  authMethod: string;
  /** Extra TTL layers beyond the application's rule for authMethod (e.g. inquiry constraints). */
  ttlLayers?: TtlLayer[];
  protocol?: 'APPLICATION' | 'OIDC';
  sourceCredentialId?: string;
  authTime?: Date;
  scope?: string;
  /**
   * The account's authority version seen at authentication; a change since then, up to the session's insert, is
   * AuthorizationArtifactStale (the insert is conditional on it).
   */
  expectedAuthorityVersion?: number;
  /** The issue read, when the caller read it in the same statement as its credential (`issueReadColumnsSql`). */
  read?: IssueReadRow;
}

/** What issuance reads: the snapshot and the principal's current pairwise subjects in the sector. */
export type IssueReadRow = SnapshotRow & { subject: string | null; actor_subject: string | null };

export interface IssuedSession {
  sid: string;
  subject: string;
  actorSubject?: string;
  claims: ClaimView;
  accessToken: string;
  refreshToken: string;
  accessTtl: number;
  refreshTtl: number;
}

export async function activeSigner(deps: IssuanceDeps, applicationId: string): Promise<Signer> {
  const signer = await deps.keyRing.signer(applicationId);
  if (!signer) throw new ServiceError('TemporarilyUnavailable', 503, { headers: { 'Retry-After': '5' } });
  return signer;
}

/** TTLs from the application's rules for the method, any extra layers, folded as the spec's Limits say. */
export function ttlsFor(app: ApplicationContext, authMethod: string, extra: TtlLayer[] = []) {
  const ruleLayers = app.authRules
    .filter((r) => r.method === authMethod)
    .map((r) => ({ accessTokenTtlSeconds: r.accessTtl, refreshTokenTtlSeconds: r.refreshTtl }));
  return foldTtls([...ruleLayers, ...extra]);
}

const currentSubjectSql = (sectorId: string, kind: string, id: string) =>
  `(SELECT x.subject FROM sector_subjects x WHERE x.sector_id = ${sectorId} AND x.principal_kind = ${kind}
     AND x.principal_id = ${id} AND x.retired_at IS NULL ORDER BY x.generation DESC LIMIT 1)`;

/**
 * The issue read (`IssueReadRow`) as select-list items over an `accounts a` in scope, for SQL expressions naming the
 * application, terms epoch, sector and the workload (kind and id; NULL for an account); a host that looks up a
 * credential reads it in the same statement.
 */
export function issueReadColumnsSql(c: {
  applicationId: string;
  epoch: string;
  sectorId: string;
  workloadKind: string;
  workloadId: string;
}): string {
  return `${snapshotColumnsSql(c.applicationId, c.epoch)},
      ${currentSubjectSql(c.sectorId, `'ACCOUNT'`, 'a.id')} AS subject,
      ${currentSubjectSql(c.sectorId, c.workloadKind, c.workloadId)} AS actor_subject`;
}

const READ_FOR_ISSUE: Statement = {
  name: 'issue_read_v2',
  text: `SELECT ${issueReadColumnsSql({
    applicationId: '$2::uuid',
    epoch: '$3::int',
    sectorId: '$4::uuid',
    workloadKind: '$5::"PrincipalKind"',
    workloadId: '$6::uuid',
  })}
    FROM accounts a WHERE a.id = $1::uuid`,
};

/**
 * The session at its first refresh version, only while the account's authority version is still the expected one
 * ($18, when given); the expiry sweep first looks at it when it would expire.
 */
const INSERT_SESSION: Statement = {
  name: 'issue_insert_v3',
  text: `INSERT INTO sessions (id, application_id, protocol, account_id, workload_id, workload_generation, subject,
      actor_subject, auth_method, source_credential_id, current_version, current_jti, access_ttl, refresh_ttl,
      auth_time, created_at, expires_at, sweep_after, scope)
    SELECT $1::text, $2::uuid, $3::"SessionProtocol", $4::uuid, $5::uuid, $6::int, $7::text, $8::text, $9::text,
      $10::text, 1, $17::text, $11::int, $12::int, $13::timestamptz, $14::timestamptz, $15::timestamptz,
      $15::timestamptz, $16::text
    WHERE $18::int IS NULL OR EXISTS (SELECT 1 FROM accounts WHERE id = $4::uuid AND authority_version = $18::int)
    RETURNING 1 AS issued`,
};

export async function issueSession(deps: IssuanceDeps, input: IssueSessionInput): Promise<IssuedSession> {
  const { application: app, principal } = input;
  checkApplication(app);
  const terms = await currentTermsCached(deps.db);
  const workload = principal.kind === 'ACCOUNT' ? undefined : principal;
  const row =
    input.read ??
    (
      await runPrepared<IssueReadRow>(deps.db, READ_FOR_ISSUE, [
        principal.accountId,
        app.id,
        terms?.acceptanceEpoch ?? 0,
        app.sectorId,
        workload?.kind ?? null,
        workload?.workloadId ?? null,
      ])
    )[0];
  const { claims } = await checkSnapshot(deps, app, toSnapshot(row, terms), terms, {
    expectedAuthorityVersion: input.expectedAuthorityVersion,
  });
  const subject =
    row?.subject ??
    (await resolveSectorSubject(deps.db, deps.subjectSecret, app.sectorId, {
      kind: 'ACCOUNT',
      id: principal.accountId,
    }));
  const actorSubject = workload
    ? (row?.actor_subject ??
      (await resolveSectorSubject(deps.db, deps.subjectSecret, app.sectorId, {
        kind: workload.kind,
        id: workload.workloadId,
      })))
    : undefined;
  const { accessTtl, refreshTtl } = ttlsFor(app, input.authMethod, input.ttlLayers);
  const signer = await activeSigner(deps, app.id);
  const sid = newSid();
  const now = deps.now();
  const iat = Math.floor(now.getTime() / 1000);
  const refreshJti = newJti();
  const common = { issuer: deps.issuer, audience: app.anchor, sid, iat };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, { ...common, ttlSeconds: accessTtl, subject, actorSubject }),
    mintRefreshToken(signer, { ...common, ttlSeconds: refreshTtl, jti: refreshJti, rotationVersion: 1 }),
  ]);
  const inserted = await runPrepared(deps.db, INSERT_SESSION, [
    sid,
    app.id,
    input.protocol ?? 'APPLICATION',
    principal.accountId,
    workload?.workloadId ?? null,
    workload?.workloadGeneration ?? null,
    subject,
    actorSubject ?? null,
    input.authMethod,
    input.sourceCredentialId ?? null,
    accessTtl,
    refreshTtl,
    input.authTime ?? now,
    now,
    new Date(refresh.exp * 1000),
    input.scope ?? null,
    refreshJti,
    input.expectedAuthorityVersion ?? null,
  ]);
  if (inserted.length === 0) throw new ServiceError('AuthorizationArtifactStale', 409);
  return {
    sid,
    subject,
    actorSubject,
    claims,
    accessToken: access.token,
    refreshToken: refresh.token,
    accessTtl,
    refreshTtl,
  };
}
