-- Dynamic client registration (RFC 7591) behind initial access tokens: each token registers clients of one
-- application, a limited number of times, until it expires. Only the token's SHA-256 is stored.
CREATE TABLE "oidc_registration_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "token_hash" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "uses_left" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_registration_tokens_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "oidc_registration_tokens_uses_left_check" CHECK ("uses_left" >= 0)
);

CREATE UNIQUE INDEX "oidc_registration_tokens_token_hash_key" ON "oidc_registration_tokens"("token_hash");
CREATE INDEX "oidc_registration_tokens_application_id_idx" ON "oidc_registration_tokens"("application_id");

-- A registered client's client_name (RFC 7591 2) and the initial access token that registered it.
ALTER TABLE "oidc_clients" ADD COLUMN "client_name" TEXT;
ALTER TABLE "oidc_clients" ADD COLUMN "registration_token_id" UUID;
