// The issuance core every host shares: checks, then a new session with its first access and refresh tokens.
import { countTokensIssued, ServiceError } from '@svc/platform';
import {
  type ClaimView,
  foldTtls,
  mintAccessToken,
  mintRefreshToken,
  newSid,
  type Signer,
  type TtlLayer,
} from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import type { IssueRead, NewSession } from './ports';
import { newRefreshJti } from './refresh-jti';

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
   * AuthorizationArtifactStale (the insert is conditional on it). Without one, the version the issuance checks
   * read is the expected one. The session keeps it: a refresh after it changed is AuthorizationArtifactStale.
   */
  expectedAuthorityVersion?: number;
  /**
   * The connect inquiry this issue redeems: the session is inserted only together with the inquiry's move from
   * REALIZED to REDEEMED, in one statement. When the inquiry is no longer redeemable (redeemed by a concurrent
   * request, or expired), or the authority version changed, nothing is written and AuthorizationArtifactStale is
   * thrown; the caller tells these apart from the inquiry row.
   */
  redeemsInquiry?: { id: string };
  /**
   * The device authorization this issue consumes: the session is inserted only together with the authorization's
   * move from APPROVED to CONSUMED, in one statement, as for an inquiry. When it is no longer consumable (consumed
   * by a concurrent poll, or expired), or the authority version changed, nothing is written and
   * AuthorizationArtifactStale is thrown; the caller tells these apart from the authorization's row.
   */
  redeemsDeviceAuthorization?: { id: string };
  /** The access token is DPoP-bound to this key (RFC 7638 thumbprint): `cnf.jkt` (the OIDC host's /token). */
  dpopJkt?: string;
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
  if (!signer) throw new ServiceError('TemporarilyUnavailable', { headers: { 'Retry-After': '5' } });
  return signer;
}

/** TTLs from the application's rules for the method, any extra layers, folded as the spec's Limits say. */
export function ttlsFor(app: ApplicationContext, authMethod: string, extra: TtlLayer[] = []) {
  const ruleLayers = app.authRules
    .filter((r) => r.method === authMethod)
    .map((r) => ({ accessTokenTtlSeconds: r.accessTtl, refreshTokenTtlSeconds: r.refreshTtl }));
  return foldTtls([...ruleLayers, ...extra]);
}

/** The issue read of a principal under an application, against the current terms. */
export async function readIssueFor(
  deps: IssuanceDeps,
  app: ApplicationContext,
  principal: Principal,
): Promise<IssueRead> {
  const terms = await deps.terms.current();
  return deps.ports.issuanceReads.readForIssue(
    {
      accountId: principal.accountId,
      applicationId: app.id,
      sectorId: app.sectorId,
      workload: principal.kind === 'ACCOUNT' ? undefined : { kind: principal.kind, id: principal.workloadId },
    },
    terms,
  );
}

/** Issues a session: the issue read, then `issueFromRead`. */
export async function issueSession(deps: IssuanceDeps, input: IssueSessionInput): Promise<IssuedSession> {
  return issueFromRead(deps, input, await readIssueFor(deps, input.application, input.principal));
}

/**
 * Issues a session from an issue read the caller took (the native host reads it in the same statement as its
 * credential): the checks over its snapshot, against the terms it was read with, then the pair and the insert.
 */
export async function issueFromRead(
  deps: IssuanceDeps,
  input: IssueSessionInput,
  read: IssueRead,
): Promise<IssuedSession> {
  const { application: app, principal } = input;
  checkApplication(app);
  const workload = principal.kind === 'ACCOUNT' ? undefined : principal;
  const { account, claims } = await checkSnapshot(deps, app, read.snapshot, read.terms, {
    expectedAuthorityVersion: input.expectedAuthorityVersion,
  });
  // A subject is created on first use; the read names the current one otherwise.
  const subject =
    read.subject ??
    (await deps.ports.sectorSubjects.resolveSectorSubject(deps.subjectSecret, app.sectorId, {
      kind: 'ACCOUNT',
      id: principal.accountId,
    }));
  const actorSubject = workload
    ? (read.actorSubject ??
      (await deps.ports.sectorSubjects.resolveSectorSubject(deps.subjectSecret, app.sectorId, {
        kind: workload.kind,
        id: workload.workloadId,
      })))
    : undefined;
  const { accessTtl, refreshTtl } = ttlsFor(app, input.authMethod, input.ttlLayers);
  const signer = await activeSigner(deps, app.id);
  const sid = newSid();
  const now = new Date(deps.clock());
  const iat = Math.floor(now.getTime() / 1000);
  const refreshJti = newRefreshJti(deps.kek, sid, 1);
  const common = { issuer: deps.issuer, audience: app.anchor, sid, iat };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, {
      ...common,
      ttlSeconds: accessTtl,
      subject,
      actorSubject,
      dpopJkt: input.dpopJkt,
    }),
    mintRefreshToken(signer, { ...common, ttlSeconds: refreshTtl, jti: refreshJti, rotationVersion: 1 }),
  ]);
  const session: NewSession = {
    id: sid,
    applicationId: app.id,
    protocol: input.protocol ?? 'APPLICATION',
    accountId: principal.accountId,
    workloadId: workload?.workloadId ?? null,
    workloadGeneration: workload?.workloadGeneration ?? null,
    subject,
    actorSubject: actorSubject ?? null,
    authMethod: input.authMethod,
    sourceCredentialId: input.sourceCredentialId ?? null,
    accessTtl,
    refreshTtl,
    authTime: input.authTime ?? now,
    createdAt: now,
    expiresAt: new Date(refresh.exp * 1000),
    scope: input.scope ?? null,
    currentJti: refreshJti,
    expectedAuthority: input.expectedAuthorityVersion ?? account.authorityVersion,
  };
  const inserted = input.redeemsInquiry
    ? await deps.ports.sessions.insertSessionRedeeming(session, { inquiryId: input.redeemsInquiry.id }, now)
    : input.redeemsDeviceAuthorization
      ? await deps.ports.sessions.insertSessionRedeeming(
          session,
          { deviceAuthorizationId: input.redeemsDeviceAuthorization.id },
          now,
        )
      : await deps.ports.sessions.insertSession(session);
  if (typeof inserted === 'object') throw inserted.failed;
  if (!inserted) throw new ServiceError('AuthorizationArtifactStale');
  countTokensIssued(deps.metrics, input.authMethod);
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
