-- Until when a near-simultaneous retry of the rotation that made a session's current version may be given that
-- version's pair again. The rotation grants it, not the host a retry reaches: the session host's rotations set it
-- (their instant plus its retry allowance), connect's strict rotations and issuance leave it null, so a consumed
-- connect token presented to the session host is reuse (family revoked), never a retry that hands out the new pair.
-- Not indexed: rotations write it and stay HOT updates. Rows from before it are null: a retry of a rotation made
-- before the migration is judged as reuse, the strict reading.

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN "retry_until" TIMESTAMPTZ(3);
