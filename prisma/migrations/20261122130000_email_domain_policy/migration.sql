-- Email-domain policy (CONTRACTS "Email-domain policy"): an organization-wide table keyed by the exact, lowercase
-- email domain, and the SSO authority an account is linked to. Issuance and refresh read both in their one
-- snapshot statement (a primary-key probe), so a change applies to the next request on every replica.

-- CreateEnum
CREATE TYPE "EmailDomainPolicyKind" AS ENUM ('ALLOW', 'BLOCK', 'REQUIRE_SSO');

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "sso_authority" TEXT;

-- CreateTable
CREATE TABLE "email_domain_policies" (
    "domain" TEXT NOT NULL,
    "policy" "EmailDomainPolicyKind" NOT NULL,
    "sso_authority" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_domain_policies_pkey" PRIMARY KEY ("domain")
);
