// What the issuance core needs from its host: database, key ring, secrets and URLs, and a clock.
import type { Db } from '@svc/db';
import type { KeyRing } from '@svc/keyring';
import { hostUrl, issuerUrl } from '@svc/platform';
import { type Kek, loadKek, loadSubjectSecret } from '@svc/token-core';

export interface IssuanceDeps {
  db: Db;
  keyRing: KeyRing;
  kek: Kek;
  subjectSecret: string;
  issuer: string;
  /** Base URL of the connect host: errand pages and terms live there. */
  connectUrl: string;
  errandTtlSeconds: number;
  now: () => Date;
}

export function issuanceDepsFromEnv(db: Db, keyRing: KeyRing, kek = loadKek()): IssuanceDeps {
  return {
    db,
    keyRing,
    kek,
    subjectSecret: loadSubjectSecret(),
    issuer: issuerUrl(),
    connectUrl: hostUrl('connect'),
    errandTtlSeconds: Number(process.env.ERRAND_TTL_SECONDS ?? 600),
    now: () => new Date(),
  };
}
