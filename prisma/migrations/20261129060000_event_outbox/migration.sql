-- Events to applications (issue 39): per-application subscriptions and the transactional outbox the worker drains.
-- An outbox row is written by the same statement (or transaction) as the change that causes it; a row-level trigger
-- NOTIFYs the worker at commit (duplicates within one transaction fold into one notification), so nothing is sent
-- when a change causes no event.

-- CreateEnum
CREATE TYPE "EventDeliveryStatus" AS ENUM ('PENDING', 'DELIVERED', 'FAILED');

-- CreateTable
CREATE TABLE "event_subscriptions" (
    "application_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_subscriptions_pkey" PRIMARY KEY ("application_id")
);

-- CreateTable
CREATE TABLE "event_outbox" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "application_id" UUID,
    "kind" TEXT NOT NULL,
    "target_url" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "txn" TEXT,
    "status" "EventDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "first_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_status" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "event_outbox_application_id_created_at_idx" ON "event_outbox"("application_id", "created_at");

-- The worker's claim reads due pending rows only.
CREATE INDEX "event_outbox_due_idx" ON "event_outbox"("next_attempt_at") WHERE "status" = 'PENDING';

-- AddForeignKey (subscriptions go with their application)
ALTER TABLE "event_subscriptions" ADD CONSTRAINT "event_subscriptions_application_id_fkey"
  FOREIGN KEY ("application_id") REFERENCES "applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION event_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('event_outbox', '');
  RETURN NULL;
END $$;

CREATE TRIGGER event_outbox_notify AFTER INSERT ON "event_outbox"
  FOR EACH ROW EXECUTE FUNCTION event_outbox_notify();

-- Rows an audited change writes carry 'txid:<transaction>' until the change's audit row id replaces it (libs/audit).
CREATE INDEX "event_outbox_txid_idx" ON "event_outbox"("txn") WHERE "txn" LIKE 'txid:%';
