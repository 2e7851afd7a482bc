// Pairwise sector subjects: opaque, stable per (principal x sector x generation), different across sectors.
import { createHmac } from 'node:crypto';

export type PrincipalKind = 'ACCOUNT' | 'AGENT' | 'AUTOMATION';

export interface SectorSubjectInput {
  sectorId: string;
  principalKind: PrincipalKind;
  principalId: string;
  /** Bumped when the user rotates the subject; a new generation yields an unrelated value. */
  generation: number;
}

/**
 * Derives the subject with an HMAC under a server secret, so it is deterministic (two replicas creating it at once
 * agree) yet reveals nothing about the raw id. The `ss_` prefix marks it as a SectorSubject, never to be parsed.
 */
export function deriveSectorSubject(secret: string | Buffer, input: SectorSubjectInput): string {
  const mac = createHmac('sha256', secret)
    .update(
      ['v1', input.sectorId, input.principalKind, input.principalId, String(input.generation)].join('\u0000'),
    )
    .digest('base64url');
  return `ss_${mac.slice(0, 32)}`;
}
