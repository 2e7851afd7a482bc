// Jest global setup: migrate the test database once, and make sure baseline basic terms exist (epoch 1), so tests
// that publish further revisions at the same epoch never invalidate other tests' acceptances.
import { createPrisma, migrate } from '@svc/db';
import { ensureBaselineTerms, testUrls } from '@svc/testkit';

export default async function globalSetup(): Promise<void> {
  process.env.NODE_ENV = 'test';
  await migrate(testUrls.database);
  const db = createPrisma(testUrls.database);
  try {
    await ensureBaselineTerms(db);
  } finally {
    await db.$disconnect();
  }
}
