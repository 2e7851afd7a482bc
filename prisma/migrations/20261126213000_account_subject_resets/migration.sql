-- How many times the account's pairwise subject was reset in any sector (the account page's "Reset my identifier"):
-- a held sign-in (a page flow, the OIDC host's sign-in session) records it beside the authority version when the
-- person authenticates, and is dropped when either has moved, so a reset also ends the OIDC host's silent answers.
-- Existing accounts start at 0: sign-ins held before the migration recorded neither and are dropped once anyway.

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "subject_resets" INTEGER NOT NULL DEFAULT 0;
