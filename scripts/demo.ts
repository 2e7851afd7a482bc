// `pnpm demo`: provisions a demo organization, sector and application `demo-app` (idempotently), an account
// that accepted the basic terms, and a fresh access key, then prints how to get and check a token.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createPrisma } from '@svc/db';
import { issuingConfigFromEnv } from '@svc/host';
import { currentTerms } from '@svc/issuance';
import { systemClock } from '@svc/platform';
import {
  acceptTerms,
  addRule,
  createAccessKey,
  createAccount,
  createApp,
  createOrg,
  createSector,
  publishTerms,
} from '@svc/provisioning';
import { BASELINE_TERMS } from '@svc/testkit';
import { kekFromBytes } from '@svc/token-core';

const ANCHOR = process.env.DEMO_ANCHOR ?? 'demo-app';
const EMAIL = 'demo@example.com';

async function main(): Promise<void> {
  // The fleet's shared configuration, read as a host reads it: the same database, KEK and URLs.
  const config = issuingConfigFromEnv('connect', process.env);
  const db = createPrisma(config.databaseUrl, config.db);
  try {
    if (!(await db.application.findUnique({ where: { anchor: ANCHOR } }))) {
      const org = await createOrg(db, 'Demo organization');
      const sector = await createSector(db, org.id, 'Demo sector');
      await createApp(
        db,
        kekFromBytes(config.kekBytes, config.previousKekBytes),
        {
          sectorId: sector.id,
          anchor: ANCHOR,
          names: { 'en-US': 'Demo App', 'zh-CN': '演示应用' },
          callbackDomains: ['localhost'],
        },
        systemClock,
      );
      await addRule(db, ANCHOR, { method: 'ACCESS_KEY_DIRECT' });
      await addRule(db, ANCHOR, { method: 'PASSKEY_USERNAMELESS' });
    }
    if (!(await currentTerms(db))) {
      const file = path.join(__dirname, '..', 'tools', 'admin', 'src', 'example-terms.json');
      const terms = (() => {
        try {
          return JSON.parse(readFileSync(file, 'utf8'));
        } catch {
          return BASELINE_TERMS;
        }
      })();
      await publishTerms(db, terms, config.urls.connect);
    }
    const account =
      (await db.account.findUnique({ where: { email: EMAIL } })) ??
      (await createAccount(db, { email: EMAIL, givenName: 'Demo', familyName: 'User' }));
    await acceptTerms(db, account.id);
    const key = await createAccessKey(db, { anchor: ANCHOR, accountId: account.id });
    const native = config.urls.native;
    const session = config.urls.session;
    const body = JSON.stringify({ applicationAnchor: ANCHOR, ...key });
    process.stdout.write(`
Demo application "${ANCHOR}" is ready. With the fleet running (pnpm start):

  # get a token pair by direct issue with the demo access key (the secret is shown only now)
  curl -s -X POST ${native}/direct-issue/access-key -H 'content-type: application/json' -d '${body}'

  # verify tokens offline against the application's JWK Set
  curl -s ${session}/applications/${ANCHOR}/jwks.json

  # check a session, rotate the refresh token
  curl -s -X POST ${session}/introspect -H 'content-type: application/json' -d '{"accessToken":"<accessToken>"}'
  curl -s -X POST ${session}/refresh -H 'content-type: application/json' -d '{"refreshToken":"<refreshToken>"}'

`);
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`demo provisioning failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
