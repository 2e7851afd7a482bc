-- The management API (services/management): operator keys (hash only) and the Idempotency-Key records of its POSTs.
CREATE TABLE "operator_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "lookup" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "operator_keys_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "operator_keys_role_check" CHECK ("role" IN ('reader', 'editor', 'owner'))
);

CREATE UNIQUE INDEX "operator_keys_lookup_key" ON "operator_keys"("lookup");

CREATE TABLE "idempotency_records" (
    "operator_key_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status" INTEGER,
    "headers" JSONB,
    "body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("operator_key_id","key")
);

CREATE INDEX "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");
