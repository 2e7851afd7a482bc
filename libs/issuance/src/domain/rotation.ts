// rotateRefreshToken: strict rotation of a session's refresh token. The presented version is consumed by one
// conditional write (current_version = presented), so across every replica exactly one rotation wins. With a
// retry allowance (session host), a near-simultaneous retry of the same rotation gets the pair already issued, if
// that rotation granted one too (it writes the window to the row: connect's strict rotations grant none):
// every claim of that pair follows from the session row (rotated_at is its iat, current_jti its jti, the access
// jti derived from it) and RS256 signatures are deterministic, so it is minted again byte for byte and no token is
// ever stored. Any other reuse revokes the whole family. A rotation that read its version as current but lost the
// write, where the allowance cannot hand out the winner's pair, is a conflict (the session host's empty 401). One
// read and one write (a HOT update of the session row, no index entry changes) per rotation, each shared with the
// rotations of the same event-loop turn; both are in the stores (store/issuance-reads.ts, store/sessions.ts), and
// `judge` decides from the read alone: a revocation it calls for is written by the caller through the store.
import { createHmac } from 'node:crypto';
import { DependencyTimeoutError, isDependencyFailure } from '@svc/platform';
import {
  type ApplicationTokenClaims,
  type ClaimView,
  type Kek,
  mintAccessToken,
  mintRefreshToken,
} from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import { sessionAuthorityMoved } from './held-authority';
import { activeSigner } from './issue';
import type { RotationRead, RotationSession } from './ports';
import { isRefreshJtiOf, newRefreshJti } from './refresh-jti';
import type { CurrentTerms } from './terms';

/** What a rotation needs: the issuance core (its sessions, reads, session events and unanswered rotations ports). */
export type RotationDeps = IssuanceDeps;

export interface RotateInput {
  app: ApplicationContext;
  claims: ApplicationTokenClaims;
  presentedToken: string;
  /** 0 for strict hosts (connect): any reuse or lost race is compromise. */
  retryAllowanceMs: number;
  /**
   * The issuance protocol of the sessions this host rotates (default APPLICATION): the OIDC host's /token rotates
   * only OIDC sessions, every other host only APPLICATION ones; a session of the other protocol is not found.
   */
  protocol?: 'APPLICATION' | 'OIDC';
  /** When given, only sessions issued by this authentication method rotate here (connect: its own sign-ins). */
  authMethod?: string;
  /**
   * The host's own condition on the session (the OIDC host: the client the session was issued to, its granted
   * scope), decided from the read before anything is consumed or revoked: it throws the host's refusal, and the
   * presented version stays as it was.
   */
  admit?: (read: RotationRead) => void;
  /** The session's scope from this rotation on (the OIDC host's narrowing), written by the consuming write. */
  scope?: string;
  /** The new access token is DPoP-bound to this key (the OIDC host's refresh grant with a proof): `cnf.jkt`. */
  dpopJkt?: string;
}

export type RotationOutcome =
  | {
      kind: 'rotated';
      accessToken: string;
      refreshToken: string;
      claims: ClaimView;
      rotationVersion: number;
      /** The session as read before this rotation (what the OIDC host's ID token takes its claims from). */
      session: RotationSession;
      oidc: RotationRead['oidc'];
    }
  | { kind: 'not_found' }
  | { kind: 'revoked' }
  | { kind: 'suspended' }
  | { kind: 'expired' }
  | { kind: 'family_compromised' }
  | { kind: 'race_lost' }
  /**
   * With a retry allowance: this rotation read its version as current (so it ran concurrently with the winner and
   * is no reuse), lost the write, and the allowance cannot answer: the winner's version was rotated again already,
   * or the winner rotated longer ago than the allowance. Nothing changes; the caller cannot be given a pair.
   */
  | { kind: 'conflict' }
  /**
   * The authority the session was issued under changed: the workload behind it (revoked, regenerated, actor subject
   * rotated, credential revoked), or the account's authority version (status or credentials changed since sign-in).
   */
  | { kind: 'stale' };

const COMPROMISED = 'compromised';
/** The revocation reason of a session whose token named a rotation the database no longer has. */
export const ROTATION_LOST = 'rotation_lost';

/** The access token's jti, derived from its refresh token's (keyed, so it looks random to everyone else). */
function accessJtiFor(kek: Kek, refreshJti: string): string {
  return createHmac('sha256', kek.key)
    .update(`access-jti\u0000${refreshJti}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

/**
 * Whether the presented version is the one just rotated, inside the allowance: a retry of that rotation. Both sides
 * must grant one: this host (connect gives none), and the rotation that consumed the version, through the window it
 * wrote (`retryUntil`). Otherwise a token consumed by connect's strict rotation, stolen and presented to the session
 * host within its allowance, would be handed the victim's new pair instead of revoking the family.
 */
function isRetry(session: RotationSession, input: RotateInput, now: Date): boolean {
  const presented = input.claims.rotationVersion ?? 0;
  return (
    input.retryAllowanceMs > 0 &&
    session.currentVersion === presented + 1 &&
    session.rotatedAt !== null &&
    session.retryUntil !== null &&
    now.getTime() <= session.retryUntil.getTime()
  );
}

/** Revokes the whole family (every version of the session) and tells every replica's session cache. */
export async function revokeFamily(deps: RotationDeps, sid: string, reason = COMPROMISED): Promise<void> {
  await deps.ports.sessions.revokeSession(sid, reason, new Date(deps.clock()));
  await deps.ports.sessionEvents.publishSessionChange(sid);
}

/**
 * Whether the authority the session was issued under changed: its workload's (the workload authority rule), or the
 * account's authority version. An account that is not ACTIVE is left to the account checks (AccountDisabled,
 * AccountDeleted), which come first.
 */
function authorityChanged(read: RotationRead): boolean {
  if (!read.workloadOk) return true;
  return sessionAuthorityMoved(read.session.authorityVersion, read.snapshot.account);
}

/** A verdict: refuse (and revoke the family, when `revoke` names why), re-mint the current version, or rotate. */
type Judgement = { refuse: RotationOutcome; revoke?: string } | 'retry' | 'rotate';

const refuse = (kind: Exclude<RotationOutcome, { kind: 'rotated' }>['kind'], revoke?: string): Judgement => ({
  refuse: { kind } as RotationOutcome,
  revoke,
});

/**
 * What the presented version may become, before any signing, decided from the read alone (and, for the one case
 * PostgreSQL failed under, whether the rotation went unanswered); it writes nothing. `afterLostWrite`: this
 * rotation already read the version as current and lost its write; a version since superseded is then no reuse but
 * a conflict, unless the allowance can answer it.
 */
async function judge(
  deps: RotationDeps,
  read: RotationRead | undefined,
  input: RotateInput,
  afterLostWrite = false,
): Promise<Judgement> {
  const { claims } = input;
  const presented = claims.rotationVersion ?? 0;
  const session = read?.session;
  if (
    !read ||
    !session ||
    session.applicationId !== input.app.id ||
    session.protocol !== (input.protocol ?? 'APPLICATION') ||
    (input.authMethod !== undefined && session.authMethod !== input.authMethod)
  )
    return refuse('not_found');
  input.admit?.(read);
  // The signature proves the token was issued; a version this session never reached was not (a pair minted for a
  // rotation that lost its write is never handed out). Every version binds to the session through its exact jti:
  // the current one is on the row, an older one carries a MAC of the sid and its version (see refresh-jti).
  if (
    presented > session.currentVersion ||
    (presented === session.currentVersion && session.currentJti !== claims.jti)
  ) {
    // Yet a jti that is this session's MAC for that version was minted here, and only a committed rotation hands
    // its pair out: the database lost a rotation it had answered (an asynchronous replica promoted, a restore).
    // The token before it is current again and would be accepted a second time (a fork, RELIABILITY.md): the
    // family is revoked, so whoever kept that copy is refused too once the owner comes back.
    const lost = isRefreshJtiOf(deps.kek, claims.jti, session.id, presented);
    return refuse('not_found', lost ? ROTATION_LOST : undefined);
  }
  if (presented < session.currentVersion && !isRefreshJtiOf(deps.kek, claims.jti, session.id, presented))
    return refuse('not_found');
  if (session.status === 'REVOKED')
    return refuse(session.revokedReason === COMPROMISED ? 'family_compromised' : 'revoked');
  if (session.status === 'SUSPENDED') return refuse('suspended');
  const now = new Date(deps.clock());
  if (session.status === 'EXPIRED' || session.expiresAt <= now) return refuse('expired');
  // Before the retry allowance: a retry after the authority changed gets no pair either.
  if (authorityChanged(read)) return refuse('stale', 'authority_changed');
  if (presented < session.currentVersion) {
    if (isRetry(session, input, now)) return 'retry';
    // The rotation this token made was committed but its answer was lost to a PostgreSQL failure: this is the
    // client's retry after the outage (only a rotation with an allowance leaves that mark).
    if (
      input.retryAllowanceMs > 0 &&
      session.currentVersion === presented + 1 &&
      (await deps.ports.unansweredRotations.wasRotationUnanswered(session.id, presented))
    ) {
      return 'retry';
    }
    if (afterLostWrite) return refuse('conflict');
    return refuse('family_compromised', COMPROMISED);
  }
  // Still current after a lost write (the session was not ACTIVE for an instant): nothing to hand out either.
  if (afterLostWrite) return refuse('conflict');
  return 'rotate';
}

/** Carries out a refusal: the family revoked when the verdict says so, then the outcome. */
async function refused(
  deps: RotationDeps,
  sid: string,
  verdict: { refuse: RotationOutcome; revoke?: string },
): Promise<RotationOutcome> {
  if (verdict.revoke) await revokeFamily(deps, sid, verdict.revoke);
  return verdict.refuse;
}

/** Mints the pair of a version: every claim comes from the session, the version, its jti and its instant. */
async function mintVersion(
  deps: RotationDeps,
  app: ApplicationContext,
  session: RotationSession,
  version: { number: number; jti: string; at: Date },
  dpopJkt: string | undefined,
) {
  const signer = await activeSigner(deps, app.id);
  const common = {
    issuer: deps.issuer,
    audience: app.anchor,
    sid: session.id,
    iat: Math.floor(version.at.getTime() / 1000),
  };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, {
      ...common,
      jti: accessJtiFor(deps.kek, version.jti),
      ttlSeconds: session.accessTtl,
      subject: session.subject,
      actorSubject: session.actorSubject ?? undefined,
      dpopJkt,
    }),
    mintRefreshToken(signer, {
      ...common,
      ttlSeconds: session.refreshTtl,
      jti: version.jti,
      rotationVersion: version.number,
    }),
  ]);
  return { accessToken: access.token, refreshToken: refresh.token, refreshExp: refresh.exp };
}

/** The issuance checks over the read's snapshot; a refusal leaves the version unconsumed for a later retry. */
async function checkedClaims(
  deps: RotationDeps,
  app: ApplicationContext,
  read: RotationRead,
  terms: CurrentTerms | undefined,
): Promise<ClaimView> {
  checkApplication(app);
  return (await checkSnapshot(deps, app, read.snapshot, terms)).claims;
}

/** A retry of the rotation just made: the pair of the current version, minted again. */
async function retryRotation(
  deps: RotationDeps,
  input: RotateInput,
  read: RotationRead,
  terms: CurrentTerms | undefined,
): Promise<RotationOutcome> {
  const { app } = input;
  const view = await checkedClaims(deps, app, read, terms);
  const { session } = read;
  const pair = await mintVersion(
    deps,
    app,
    session,
    {
      number: session.currentVersion,
      jti: session.currentJti,
      at: session.rotatedAt!,
    },
    input.dpopJkt,
  );
  return {
    kind: 'rotated',
    ...pair,
    claims: view,
    rotationVersion: session.currentVersion,
    session,
    oidc: read.oidc,
  };
}

// Module-level steps rather than closures: this runs once per refresh, and each closure would be a fresh function.
export async function rotateRefreshToken(deps: RotationDeps, input: RotateInput): Promise<RotationOutcome> {
  const { app, claims } = input;
  const presented = claims.rotationVersion ?? 0;
  const terms = await deps.terms.current();

  const read = await deps.ports.issuanceReads.readRotation(claims.sid, terms);
  const verdict = await judge(deps, read, input);
  if (verdict === 'retry') return retryRotation(deps, input, read!, terms);
  if (verdict !== 'rotate') return refused(deps, claims.sid, verdict);
  const { session } = read!;
  const view = await checkedClaims(deps, app, read!, terms);
  // rotated_at keeps milliseconds; the tokens' iat is its whole second, so a retry mints the same iat again.
  const now = new Date(deps.clock());
  const next = { number: presented + 1, jti: newRefreshJti(deps.kek, session.id, presented + 1), at: now };
  const pair = await mintVersion(deps, app, session, next, input.dpopJkt);
  const won = await deps.ports.sessions
    .consumeVersion({
      sid: session.id,
      presented,
      next: next.number,
      at: now,
      expiresAt: new Date(pair.refreshExp * 1000),
      retryUntil: input.retryAllowanceMs > 0 ? new Date(now.getTime() + input.retryAllowanceMs) : null,
      jti: next.jti,
      scope: input.scope ?? null,
      deadline: new Date(read!.readAt.getTime() + deps.ports.sessions.statementTimeoutMs),
    })
    .catch(async (err: unknown) => {
      // The write may have committed before the failure reached us (a timeout, a connection dropped after the
      // commit): remember it, so the client's retry gets this pair rather than a reuse verdict. A strict rotation
      // (connect) grants no retry, so it leaves no mark another host could answer.
      if (isDependencyFailure(err) && input.retryAllowanceMs > 0)
        await deps.ports.unansweredRotations.markRotationUnanswered(session.id, presented);
      throw err;
    });
  if (won) {
    return {
      kind: 'rotated',
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      claims: view,
      rotationVersion: next.number,
      session,
      oidc: read!.oidc,
    };
  }
  const again = await deps.ports.issuanceReads.readRotation(claims.sid, terms);
  const current = again?.session;
  if (
    current?.status === 'ACTIVE' &&
    current.currentVersion === presented &&
    current.currentJti === claims.jti
  ) {
    // Nothing consumed the version: the write missed its deadline (or met the session not ACTIVE for an instant).
    // The rotation never happened, so this is no conflict: the client may simply try again.
    throw new DependencyTimeoutError('the rotation write reached PostgreSQL after its deadline');
  }
  // Lost to a concurrent rotation of the same version (or a revocation): with an allowance, the winner's version is
  // committed and this is its retry, or a conflict the allowance cannot answer; otherwise (strict hosts) the lost
  // race compromises the family.
  if (input.retryAllowanceMs > 0) {
    const outcome = await judge(deps, again, input, true);
    if (outcome === 'retry') return retryRotation(deps, input, again!, terms);
    if (outcome === 'rotate') return { kind: 'conflict' };
    return refused(deps, session.id, outcome);
  }
  await revokeFamily(deps, session.id);
  return { kind: 'race_lost' };
}
