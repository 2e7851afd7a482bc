-- DPoP at /par (RFC 9449 10): the key a pushed request's proof named; only a proof by that key redeems the code.
ALTER TABLE "oidc_authorization_codes" ADD COLUMN "dpop_jkt" TEXT;
