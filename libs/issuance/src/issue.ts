// The issuance core every host shares: checks, then a new session with its first access and refresh tokens.
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
import { runIssuanceChecks } from './checks';
import type { IssuanceDeps } from './deps';
import { resolveSectorSubject } from './sector-subjects';

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
  /** The account's authority version seen at authentication; a change since then is AuthorizationArtifactStale. */
  expectedAuthorityVersion?: number;
}

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

export async function issueSession(deps: IssuanceDeps, input: IssueSessionInput): Promise<IssuedSession> {
  const { application: app, principal } = input;
  const { claims } = await runIssuanceChecks(deps, app, principal.accountId, {
    expectedAuthorityVersion: input.expectedAuthorityVersion,
  });
  const subject = await resolveSectorSubject(deps.db, deps.subjectSecret, app.sectorId, {
    kind: 'ACCOUNT',
    id: principal.accountId,
  });
  const actorSubject =
    principal.kind === 'ACCOUNT'
      ? undefined
      : await resolveSectorSubject(deps.db, deps.subjectSecret, app.sectorId, {
          kind: principal.kind,
          id: principal.workloadId,
        });
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
  const expiresAt = new Date(refresh.exp * 1000);
  await deps.db.session.create({
    data: {
      id: sid,
      applicationId: app.id,
      protocol: input.protocol ?? 'APPLICATION',
      accountId: principal.accountId,
      workloadId: principal.kind === 'ACCOUNT' ? null : principal.workloadId,
      workloadGeneration: principal.kind === 'ACCOUNT' ? null : principal.workloadGeneration,
      subject,
      actorSubject: actorSubject ?? null,
      authMethod: input.authMethod,
      sourceCredentialId: input.sourceCredentialId ?? null,
      currentVersion: 1,
      accessTtl,
      refreshTtl,
      authTime: input.authTime ?? now,
      createdAt: now,
      expiresAt,
      scope: input.scope ?? null,
      versions: { create: { version: 1, jti: refreshJti, issuedAt: now, expiresAt } },
    },
  });
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
