-- DPoP (RFC 9449): per-client dpop_bound_access_tokens, and the key a public client's refresh token is bound to.
ALTER TABLE "oidc_clients" ADD COLUMN "require_dpop" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "oidc_sessions" ADD COLUMN "dpop_jkt" TEXT;
