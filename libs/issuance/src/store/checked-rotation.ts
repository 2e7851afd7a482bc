// Store of the one-statement rotation: the conditional write of a refresh whose session this process rotated
// last, carrying the state its issuance checks passed on. It consumes the presented version (as
// `rotation_consume` does) only while everything a refresh could be refused for is still exactly as it was then:
// the session ACTIVE, unexpired, at the presented version and jti, issued under the same authority; the account
// ACTIVE with the same authority version, profile values, SSO link and email-domain policy; a basic-terms receipt at
// the terms epoch; the same claim grants; the workload authority rule still true. Any difference, and the write
// changes nothing: the caller then reads and decides in full (rotation.ts). One round trip instead of two.
import { columnsOf, type Db, gatherOn, runPrepared, type Statement, unnestParams } from '@svc/db';
import { emailDomainPolicySql, workloadAuthoritySql } from './issuance-reads';

const CONSUME_CHECKED: Statement = {
  name: 'rotation_consume_checked_v1',
  text: `UPDATE sessions s
    SET current_version = v.next, current_jti = v.jti, rotated_at = v.at, expires_at = v.expires
    FROM ${unnestParams([
      'text',
      'int',
      'text',
      'int',
      'timestamptz',
      'timestamptz',
      'text',
      'timestamptz',
      'int',
      'int',
      'int',
      'text',
      'bool',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
      'jsonb',
    ])} AS v(id, presented, presented_jti, next, at, expires, jti, deadline, epoch, session_authority,
        account_authority, email, email_verified, given_name, family_name, picture, picture_animated,
        domain_policy, domain_authority, grants),
      accounts a
    WHERE s.id = v.id AND s.current_version = v.presented AND s.current_jti = v.presented_jti
      AND s.status = 'ACTIVE' AND s.expires_at > v.at AND statement_timestamp() < v.deadline
      AND s.authority_version IS NOT DISTINCT FROM v.session_authority
      AND a.id = s.account_id AND a.status = 'ACTIVE' AND a.authority_version = v.account_authority
      AND a.email IS NOT DISTINCT FROM v.email AND a.email_verified = v.email_verified
      AND a.given_name IS NOT DISTINCT FROM v.given_name AND a.family_name IS NOT DISTINCT FROM v.family_name
      AND a.picture IS NOT DISTINCT FROM v.picture AND a.picture_animated IS NOT DISTINCT FROM v.picture_animated
      AND ${emailDomainPolicySql('a')} IS NOT DISTINCT FROM
        (CASE WHEN v.domain_policy IS NULL THEN NULL ELSE ARRAY[v.domain_policy, v.domain_authority] END)
      AND (v.domain_policy IS NULL OR a.sso_authority IS NOT DISTINCT FROM v.domain_authority)
      AND (v.epoch IS NULL OR EXISTS (SELECT 1 FROM agreement_receipts r WHERE r.account_id = a.id
        AND r.document_type = 'BASIC_TERMS' AND r.acceptance_epoch >= v.epoch))
      AND COALESCE((SELECT jsonb_object_agg(g.claim, g.state) FROM claim_grants g
        WHERE g.account_id = a.id AND g.application_id = s.application_id), '{}'::jsonb) = v.grants
      AND ${workloadAuthoritySql({
        workloadId: 's.workload_id',
        generation: 's.workload_generation',
        actorSubject: 's.actor_subject',
        credentialId: 's.source_credential_id',
      })}
    RETURNING s.id, s.current_jti`,
};

/** One rotation's write and the state its checks passed on. */
export interface CheckedConsumeInput {
  sid: string;
  presented: number;
  presentedJti: string;
  next: number;
  at: Date;
  expiresAt: Date;
  jti: string;
  /** Not applied if PostgreSQL starts the write at or after this instant (its clock). */
  deadline: Date;
  /** The terms epoch a receipt must reach; null when no terms were ever published. */
  epoch: number | null;
  sessionAuthority: number | null;
  accountAuthority: number;
  email: string | null;
  emailVerified: boolean;
  givenName: string | null;
  familyName: string | null;
  picture: string | null;
  pictureAnimated: string | null;
  /** The account's email domain's policy other than ALLOW (only REQUIRE_SSO can have passed), or null. */
  domainPolicy: string | null;
  /** That policy's SSO authority, which the account's link equals (it passed). */
  domainAuthority: string | null;
  /** The claim grants as JSON (`{claim: state}`). */
  grants: string;
}

const FIELDS = [
  'sid',
  'presented',
  'presentedJti',
  'next',
  'at',
  'expiresAt',
  'jti',
  'deadline',
  'epoch',
  'sessionAuthority',
  'accountAuthority',
  'email',
  'emailVerified',
  'givenName',
  'familyName',
  'picture',
  'pictureAnimated',
  'domainPolicy',
  'domainAuthority',
  'grants',
] as const satisfies readonly (keyof CheckedConsumeInput)[];

/** The checked writes of every rotation in the same turn, one statement; true for each input whose write won. */
export async function consumeCheckedVersions(db: Db, inputs: CheckedConsumeInput[]): Promise<boolean[]> {
  const won = await runPrepared<{ id: string; current_jti: string }>(
    db,
    CONSUME_CHECKED,
    columnsOf(inputs, FIELDS),
  );
  const winners = new Set(won.map((w) => `${w.id} ${w.current_jti}`));
  return inputs.map((i) => winners.has(`${i.sid} ${i.jti}`));
}

/** The checked write of one rotation, gathered per event-loop turn. */
export const consumeCheckedVersion = gatherOn(consumeCheckedVersions);
