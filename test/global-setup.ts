// Jest global setup: migrate the test database once before any suite runs.
import { databaseUrl, migrate } from '@svc/db';

export default async function globalSetup(): Promise<void> {
  process.env.NODE_ENV = 'test';
  await migrate(databaseUrl());
}
