-- The device host (services/device): what the approval page shows and records, and user codes unique among live
-- authorizations only. A user code is unique while its authorization is PENDING or APPROVED (the partial unique
-- index below, which Prisma's schema cannot state); a DENIED or CONSUMED authorization frees its code, and an
-- expired one frees it when the worker's sweep deletes it. /device-authorize inserts with ON CONFLICT DO NOTHING
-- and draws a new code when the insert lost, so two replicas can never hand out one live code twice.

-- DropIndex
DROP INDEX "device_authorizations_user_code_key";

-- CreateIndex
CREATE UNIQUE INDEX "device_authorizations_live_user_code_key" ON "device_authorizations"("user_code")
  WHERE "state" IN ('PENDING', 'APPROVED');

-- AlterTable
ALTER TABLE "device_authorizations"
  ADD COLUMN "device_address" TEXT,
  ADD COLUMN "device_user_agent" TEXT,
  ADD COLUMN "auth_method" TEXT,
  ADD COLUMN "auth_time" TIMESTAMPTZ(3),
  ADD COLUMN "authority_version" INTEGER,
  ADD COLUMN "consent" JSONB,
  ADD COLUMN "session_id" TEXT;
