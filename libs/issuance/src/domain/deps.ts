// What the issuance core needs from its host: its stores (ports), key ring, secrets and URLs, and a clock; never a
// database or Redis handle. The host builds it from its parsed configuration (@svc/host issuanceDepsOf); tests from
// testkit's configuration.
import type { KeyRing } from '@svc/keyring';
import type { Clock, Metrics } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import type { IssuancePorts } from './ports';
import type { TermsCache } from './snapshot';

export interface IssuanceDeps {
  /** Every store of the issuance core, bound once (domain/ports.ts): what the rules read and write through. */
  ports: IssuancePorts;
  keyRing: KeyRing;
  kek: Kek;
  subjectSecret: string;
  issuer: string;
  /** Base URL of the connect host: errand pages and terms live there. */
  connectUrl: string;
  errandTtlSeconds: number;
  /** The current terms, reused in process for TERMS_CACHE_MS (0 in tests) by the host's clock. */
  terms: TermsCache;
  /** How many verified tokens a process remembers; 0 turns it off (VERIFIED_TOKEN_CACHE_SIZE). */
  verifiedTokenCacheSize: number;
  /** The host's clock (ms since the epoch); tests pass a settable one. */
  clock: Clock;
  /** Where issued pairs are counted (tokens_issued_total); tests may leave it out. */
  metrics?: Metrics;
}
