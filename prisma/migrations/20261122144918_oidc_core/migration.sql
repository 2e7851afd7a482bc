-- The OIDC host (issue #15): registered clients per application, single-use authorization codes (stored hashed,
-- bound to client, redirect URI, PKCE challenge, nonce, auth_time, amr and scope), and what an OIDC-issued session
-- keeps beside its session row (the client, the authentication references, the browser sign-in session).

-- CreateTable
CREATE TABLE "oidc_clients" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "client_id" TEXT NOT NULL,
    "secret_hash" TEXT,
    "auth_method" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "redirect_uris" TEXT[],
    "post_logout_redirect_uris" TEXT[],
    "response_types" TEXT[],
    "status" "CredentialStatus" NOT NULL DEFAULT 'ACTIVE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_clients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oidc_authorization_codes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "code_hash" TEXT NOT NULL,
    "oidc_client_id" UUID NOT NULL,
    "application_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "code_challenge" TEXT,
    "nonce" TEXT,
    "scope" TEXT NOT NULL,
    "auth_time" TIMESTAMPTZ(3) NOT NULL,
    "amr" TEXT[],
    "acr" TEXT,
    "browser_session_id" TEXT,
    "authority_version" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),
    "replayed_at" TIMESTAMPTZ(3),
    "sid" TEXT,

    CONSTRAINT "oidc_authorization_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oidc_sessions" (
    "sid" TEXT NOT NULL,
    "oidc_client_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "amr" TEXT[],
    "acr" TEXT,
    "browser_session_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_sessions_pkey" PRIMARY KEY ("sid")
);

-- CreateIndex
CREATE UNIQUE INDEX "oidc_clients_client_id_key" ON "oidc_clients"("client_id");

-- CreateIndex
CREATE INDEX "oidc_clients_application_id_idx" ON "oidc_clients"("application_id");

-- CreateIndex
CREATE UNIQUE INDEX "oidc_authorization_codes_code_hash_key" ON "oidc_authorization_codes"("code_hash");

-- CreateIndex
CREATE INDEX "oidc_authorization_codes_expires_at_idx" ON "oidc_authorization_codes"("expires_at");

-- CreateIndex
CREATE INDEX "oidc_sessions_browser_session_id_idx" ON "oidc_sessions"("browser_session_id");
