-- A session keeps the account's authority version it was issued under, so a refresh after the account's identity
-- authority changed (status, credentials) answers AuthorizationArtifactStale. Refresh reads it in its one
-- existing read; nothing indexes it and rotations never write it, so they stay HOT updates. Sessions issued before
-- this migration have none and are not checked.

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN "authority_version" INTEGER;
