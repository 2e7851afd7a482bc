-- Ending a sign-in session revokes every OIDC session it issued, found by the ID tokens' `sid` (#39): an index, so
-- end-session reads the sign-in's rows, not the table.
CREATE INDEX "oidc_sessions_id_token_sid_idx" ON "oidc_sessions"("id_token_sid");
