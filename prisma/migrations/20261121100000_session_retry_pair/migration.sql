-- The refresh retry allowance keeps the newest pair on the session row itself, written by the same conditional
-- update that consumes a version (replaces the Redis claim and result keys).
-- AlterTable
ALTER TABLE "sessions" ADD COLUMN "retry_pair" TEXT;
