-- At most one live (unretired) pairwise subject per principal and sector, whatever races: a reset retires the
-- current row and inserts the next generation in one transaction (under an advisory lock); this index makes a
-- second live row impossible even for a writer that skipped the lock.
CREATE UNIQUE INDEX "sector_subjects_one_live_key" ON "sector_subjects"("sector_id", "principal_kind", "principal_id") WHERE "retired_at" IS NULL;
