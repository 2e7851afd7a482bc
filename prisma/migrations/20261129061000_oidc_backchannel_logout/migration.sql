-- OIDC Back-Channel Logout 1.0: a client's back-channel logout URI, and the `sid` ID tokens carry per sign-in session.
ALTER TABLE "oidc_clients" ADD COLUMN "backchannel_logout_uri" TEXT;
ALTER TABLE "oidc_sessions" ADD COLUMN "id_token_sid" TEXT;
-- Rows issued before: the value the OIDC host now derives (base64url SHA-256 of 'oidc-sid:' and the sign-in's
-- handle, or of 'oidc-sid:session:' and the row's sid without one).
UPDATE "oidc_sessions" SET "id_token_sid" = rtrim(translate(encode(sha256(convert_to(
  CASE WHEN browser_session_id IS NOT NULL THEN 'oidc-sid:' || browser_session_id ELSE 'oidc-sid:session:' || sid END,
  'UTF8')), 'base64'), '+/', '-_'), '=');
