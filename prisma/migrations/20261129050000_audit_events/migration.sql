-- The audit trail (libs/audit, docs/audit.md): one row per change in the change's own transaction, chained by
-- SHA-256 (hash = SHA-256(prev_hash || canonical JSON of the row)); the chain head is one row every append locks.

-- CreateTable
CREATE TABLE "audit_events" (
    "seq" BIGINT NOT NULL,
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "at" TIMESTAMPTZ(3) NOT NULL,
    "actor_kind" TEXT NOT NULL,
    "actor_id" TEXT NOT NULL,
    "actor_name" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "changes" JSONB NOT NULL,
    "request_id" TEXT,
    "source_address" TEXT,
    "user_agent" TEXT,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "audit_chain_head" (
    "id" INTEGER NOT NULL,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_chain_head_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_id_key" ON "audit_events"("id");

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");

-- CreateIndex
CREATE INDEX "audit_events_action_seq_idx" ON "audit_events"("action", "seq");

-- CreateIndex
CREATE INDEX "audit_events_actor_id_seq_idx" ON "audit_events"("actor_id", "seq");

-- CreateIndex
CREATE INDEX "audit_events_target_id_seq_idx" ON "audit_events"("target_id", "seq");

-- The genesis head: seq 0 and 64 zeros, the first row's prev_hash.
INSERT INTO "audit_chain_head" ("id", "seq", "hash") VALUES (1, 0, repeat('0', 64));
