-- Pushed authorization requests (RFC 9126): a client registered with --require-par is refused at /authorize
-- without a request_uri from /par.
ALTER TABLE "oidc_clients" ADD COLUMN "require_par" BOOLEAN NOT NULL DEFAULT false;
