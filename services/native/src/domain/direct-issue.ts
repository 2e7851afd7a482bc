// The two credential paths of direct issue as one domain call each: both rate limits and the proof as one counted
// credential attempt (credential-attempt.ts), then the shared issuance tail (issue.ts) for the proven binding.
import { decodeProtectedHeader } from 'jose';
import { checkAccessKeyFormats, proveAccessKey } from './access-key';
import { consumeLimits, countedAttempt } from './credential-attempt';
import { type DirectIssueResult, issueForCredential, requireApplication } from './issue';
import type { NativeDomain } from './ports';
import { provePublicKeyAssertion } from './public-key';

/**
 * POST /direct-issue/access-key: the formats (before anything is counted against the limits), both limits, the
 * proof, then the issue. The body is the parsed request's, passed as it is.
 */
export async function accessKeyDirectIssue(
  d: NativeDomain,
  body: { applicationAnchor: string; accessKeyIdentifier: string; accessKeySecret: string },
  address: string,
): Promise<DirectIssueResult> {
  const binding = await countedAttempt(d, 'access_key', async () => {
    checkAccessKeyFormats(body.accessKeyIdentifier, body.accessKeySecret);
    await consumeLimits(d.ports.limits.accessKey, address, body.accessKeyIdentifier);
    const app = await requireApplication(d, body.applicationAnchor);
    return proveAccessKey(d, app, body.accessKeyIdentifier, body.accessKeySecret);
  });
  return issueForCredential(d, binding);
}

/** The kid named by an (unverified) assertion, only as a rate-limit key; undefined when unreadable. */
function peekKid(authorization: string | undefined): string | undefined {
  const jws = authorization?.trim().split(/\s+/)[1];
  if (!jws || jws.length > 4096) return undefined;
  try {
    const kid = decodeProtectedHeader(jws).kid;
    return typeof kid === 'string' && kid.startsWith('pky_') && kid.length <= 64 ? kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * POST /direct-issue/public-key: both limits (the credential's by the kid the assertion names, unverified), the
 * proof, then the issue.
 */
export async function publicKeyDirectIssue(
  d: NativeDomain,
  applicationAnchor: string,
  assertion: { authorization: string | undefined; rawBody: Buffer },
  address: string,
): Promise<DirectIssueResult> {
  const binding = await countedAttempt(d, 'public_key', async () => {
    await consumeLimits(d.ports.limits.publicKey, address, peekKid(assertion.authorization));
    return provePublicKeyAssertion(d, await requireApplication(d, applicationAnchor), assertion);
  });
  return issueForCredential(d, binding);
}
