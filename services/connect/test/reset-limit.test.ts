// Issue 25: identifier resets are limited per account (RESETS_PER_ACCOUNT a day): past the limit a reset changes
// nothing (the subject stays, nothing is revoked) and reports 'limited'.
import { issueSession } from '@svc/issuance';
import { createApplicationsStore, createSectorSubjectsStore } from '@svc/issuance/stores';
import { createRateLimiter } from '@svc/platform';
import { provisionAccount, provisionApp, uniqueName, useInfra } from '@svc/testkit';
import { RESET_WINDOW_SECONDS, RESETS_PER_ACCOUNT, resetSectorIdentifier } from '../src/domain/account-page';
import { createAccountChanges, createAccountPageStore } from '../src/store/account-page';

const infra = useInfra();

test(`an account resets its identifier at most ${RESETS_PER_ACCOUNT} times a day`, async () => {
  const app = await provisionApp(infra);
  const account = await provisionAccount(infra);
  const application = (await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor }))!;
  await issueSession(infra.issuance, {
    application,
    principal: { kind: 'ACCOUNT', accountId: account.id },
    authMethod: 'ACCESS_KEY_DIRECT',
  });
  const clock = () => Date.now();
  const ports = {
    accountPage: createAccountPageStore(infra.db),
    accountChanges: createAccountChanges(infra.db, clock),
    issuance: infra.issuance.ports,
    resetLimit: createRateLimiter(infra.redis, {
      keyPrefix: uniqueName('reset-limit'),
      points: RESETS_PER_ACCOUNT,
      durationSeconds: RESET_WINDOW_SECONDS,
      perAddress: false,
    }),
  };
  const values = { subjectSecret: infra.issuance.subjectSecret, clock };
  const reset = () => resetSectorIdentifier(ports, values, account.id, app.sectorId);
  for (let i = 0; i < RESETS_PER_ACCOUNT; i++) expect(await reset()).toBe('reset');
  const subject = () =>
    createSectorSubjectsStore(infra.db).resolveSectorSubject(infra.issuance.subjectSecret, app.sectorId, {
      kind: 'ACCOUNT',
      id: account.id,
    });
  const before = await subject();
  expect(await reset()).toBe('limited');
  expect(await subject()).toBe(before);
  expect((await infra.db.account.findUniqueOrThrow({ where: { id: account.id } })).subjectResets).toBe(
    RESETS_PER_ACCOUNT,
  );
});
