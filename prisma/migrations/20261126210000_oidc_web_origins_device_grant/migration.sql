-- OIDC clients for browser applications and devices (CONTRACTS, "OIDC host for browser applications and devices").
-- web_origins: the origins (scheme://host[:port]) whose pages may read this client's /token, /userinfo and
-- revocation answers (CORS); none by default, so a client registered before this reads nothing new.
-- grant_types: the grants the client may use besides refresh_token: authorization_code (the default, what every
-- client registered before this used) and the device grant (urn:ietf:params:oauth:grant-type:device_code, opt-in).
-- Device authorizations started at the OIDC host's device_authorization_endpoint name their client and scope, and
-- keep the approving sign-in's amr and acr for the ID token; a row of the spec's device wire leaves them null.

-- AlterTable
ALTER TABLE "oidc_clients" ADD COLUMN "web_origins" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "grant_types" TEXT[] NOT NULL DEFAULT ARRAY['authorization_code']::TEXT[];

-- AlterTable
ALTER TABLE "device_authorizations" ADD COLUMN "oidc_client_id" UUID,
ADD COLUMN "scope" TEXT,
ADD COLUMN "amr" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "acr" TEXT;
