-- Rotation state moves onto the session row so that a rotation is one HOT update (no index entry changes):
-- the newest refresh version's jti lives in sessions.current_jti instead of one refresh_versions row (and four
-- index entries) per rotation, and the expiry sweep finds sessions through sweep_after, which rotations leave alone,
-- instead of through the sliding expires_at. Reuse detection needs only the version number and the signature.

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN "current_jti" TEXT;
ALTER TABLE "sessions" ADD COLUMN "sweep_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Backfill: the newest version's jti, and the first sweep look at the current expiry.
UPDATE "sessions" s SET "current_jti" = v."jti"
  FROM "refresh_versions" v WHERE v."session_id" = s."id" AND v."version" = s."current_version";
UPDATE "sessions" SET "current_jti" = gen_random_uuid()::text WHERE "current_jti" IS NULL;
UPDATE "sessions" SET "sweep_after" = "expires_at";
ALTER TABLE "sessions" ALTER COLUMN "current_jti" SET NOT NULL;

-- Room on every page for the updated row version, so rotations stay on the page (HOT).
ALTER TABLE "sessions" SET (fillfactor = 80);

-- DropIndex
DROP INDEX "sessions_status_expires_at_idx";
-- Nothing looks sessions up by (application, subject); revoke-all and the admin listing look them up by
-- (account, application), and the account prefix serves everything that looks up by account alone.
DROP INDEX "sessions_application_id_subject_idx";
DROP INDEX "sessions_account_id_idx";

-- CreateIndex
CREATE INDEX "sessions_sweep_after_idx" ON "sessions"("sweep_after");
CREATE INDEX "sessions_account_id_application_id_idx" ON "sessions"("account_id", "application_id");

-- DropTable
DROP TABLE "refresh_versions";
