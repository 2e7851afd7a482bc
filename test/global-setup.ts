// Jest global setup: migrate the test database once, and make sure baseline basic terms exist (epoch 1), so tests
// that publish further revisions at the same epoch never invalidate other tests' acceptances.
import { createPrisma, databaseUrl, migrate } from '@svc/db';
import { currentTerms } from '@svc/issuance';
import { publishTerms } from '@svc/provisioning';
import { BASELINE_TERMS } from '@svc/testkit';

export default async function globalSetup(): Promise<void> {
  process.env.NODE_ENV = 'test';
  await migrate(databaseUrl());
  const db = createPrisma();
  try {
    if (!(await currentTerms(db))) await publishTerms(db, BASELINE_TERMS, 'http://127.0.0.1:4101');
  } finally {
    await db.$disconnect();
  }
}
