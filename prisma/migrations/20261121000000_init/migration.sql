-- CreateEnum
CREATE TYPE "OrgStatus" AS ENUM ('ACTIVE', 'DISABLED');

-- CreateEnum
CREATE TYPE "ApplicationStatus" AS ENUM ('ACTIVE', 'SUSPENDED', 'DISABLED');

-- CreateEnum
CREATE TYPE "AccountStatus" AS ENUM ('ACTIVE', 'DISABLED', 'DELETED');

-- CreateEnum
CREATE TYPE "PrincipalKind" AS ENUM ('ACCOUNT', 'AGENT', 'AUTOMATION');

-- CreateEnum
CREATE TYPE "CredentialStatus" AS ENUM ('ACTIVE', 'REVOKED');

-- CreateEnum
CREATE TYPE "SigningKeyScope" AS ENUM ('APPLICATION', 'OIDC');

-- CreateEnum
CREATE TYPE "SigningKeyStatus" AS ENUM ('NEXT', 'ACTIVE', 'RETIRING', 'REVOKED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "SessionStatus" AS ENUM ('ACTIVE', 'SUSPENDED', 'REVOKED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "SessionProtocol" AS ENUM ('APPLICATION', 'OIDC');

-- CreateEnum
CREATE TYPE "GrantState" AS ENUM ('GRANTED', 'DENIED');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "status" "OrgStatus" NOT NULL DEFAULT 'ACTIVE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sectors" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" "OrgStatus" NOT NULL DEFAULT 'ACTIVE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "applications" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "anchor" TEXT NOT NULL,
    "sector_id" UUID NOT NULL,
    "status" "ApplicationStatus" NOT NULL DEFAULT 'ACTIVE',
    "names" JSONB NOT NULL,
    "default_locale" TEXT NOT NULL DEFAULT 'en-US',
    "callback_domains" TEXT[] NOT NULL,
    "claim_requirements" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "applications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "authentication_rules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "application_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "platform_app_ids" BIGINT[] NOT NULL,
    "access_ttl" INTEGER,
    "refresh_ttl" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "authentication_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "return_rules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "application_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "return_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email" TEXT,
    "email_verified" BOOLEAN NOT NULL DEFAULT false,
    "given_name" TEXT,
    "family_name" TEXT,
    "picture" TEXT,
    "picture_animated" TEXT,
    "status" "AccountStatus" NOT NULL DEFAULT 'ACTIVE',
    "authority_version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workloads" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kind" "PrincipalKind" NOT NULL,
    "owner_account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" "CredentialStatus" NOT NULL DEFAULT 'ACTIVE',
    "generation" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workloads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sector_subjects" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "sector_id" UUID NOT NULL,
    "principal_kind" "PrincipalKind" NOT NULL,
    "principal_id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 1,
    "retired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sector_subjects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_grants" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "application_id" UUID NOT NULL,
    "claim" TEXT NOT NULL,
    "state" "GrantState" NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "claim_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "identifier" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "workload_id" UUID,
    "status" "CredentialStatus" NOT NULL DEFAULT 'ACTIVE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "access_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "public_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kid" TEXT NOT NULL,
    "jwk" JSONB NOT NULL,
    "application_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "workload_id" UUID,
    "status" "CredentialStatus" NOT NULL DEFAULT 'ACTIVE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "public_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_links" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "platform" TEXT NOT NULL,
    "platform_user_id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kid" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "jwk" JSONB NOT NULL,
    "status" "CredentialStatus" NOT NULL DEFAULT 'ACTIVE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kid" TEXT NOT NULL,
    "scope" "SigningKeyScope" NOT NULL,
    "application_id" UUID,
    "status" "SigningKeyStatus" NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_key_enc" TEXT NOT NULL,
    "kek_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activates_at" TIMESTAMPTZ(3),
    "activated_at" TIMESTAMPTZ(3),
    "retired_at" TIMESTAMPTZ(3),
    "publish_until" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "protocol" "SessionProtocol" NOT NULL DEFAULT 'APPLICATION',
    "account_id" UUID NOT NULL,
    "workload_id" UUID,
    "workload_generation" INTEGER,
    "subject" TEXT NOT NULL,
    "actor_subject" TEXT,
    "auth_method" TEXT NOT NULL,
    "source_credential_id" TEXT,
    "status" "SessionStatus" NOT NULL DEFAULT 'ACTIVE',
    "revoked_reason" TEXT,
    "current_version" INTEGER NOT NULL DEFAULT 1,
    "access_ttl" INTEGER NOT NULL,
    "refresh_ttl" INTEGER NOT NULL,
    "auth_time" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "scope" TEXT,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refresh_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "session_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "jti" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "refresh_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agreement_documents" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "document_type" TEXT NOT NULL DEFAULT 'BASIC_TERMS',
    "revision" INTEGER NOT NULL,
    "acceptance_epoch" INTEGER NOT NULL DEFAULT 1,
    "body" JSONB NOT NULL,
    "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agreement_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agreement_receipts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "document_type" TEXT NOT NULL DEFAULT 'BASIC_TERMS',
    "revision" INTEGER NOT NULL,
    "acceptance_epoch" INTEGER NOT NULL DEFAULT 1,
    "locale" TEXT,
    "content_sha256" TEXT,
    "channel" TEXT NOT NULL,
    "accepted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agreement_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inquiries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "application_id" UUID NOT NULL,
    "exposure_key_hash" TEXT NOT NULL,
    "hidden_key_hash" TEXT NOT NULL,
    "confirmation_key_hash" TEXT,
    "confirmation_key_enc" TEXT,
    "state" TEXT NOT NULL DEFAULT 'ESTABLISHED',
    "constraints" JSONB NOT NULL,
    "account_id" UUID,
    "auth_method" TEXT,
    "auth_time" TIMESTAMPTZ(3),
    "authority_version" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "realized_at" TIMESTAMPTZ(3),
    "redeemed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "inquiries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "passkeys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "credential_id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "public_key" BYTEA NOT NULL,
    "counter" BIGINT NOT NULL DEFAULT 0,
    "transports" TEXT[] NOT NULL,
    "user_handle" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "passkeys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "errands" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "errand_key_hash" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "claims" TEXT[] NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'PENDING',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "errands_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "device_authorizations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "device_code_hash" TEXT NOT NULL,
    "user_code" TEXT NOT NULL,
    "application_id" UUID NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'PENDING',
    "account_id" UUID,
    "interval" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "device_authorizations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sectors_organization_id_idx" ON "sectors"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "applications_anchor_key" ON "applications"("anchor");

-- CreateIndex
CREATE INDEX "applications_sector_id_idx" ON "applications"("sector_id");

-- CreateIndex
CREATE INDEX "authentication_rules_application_id_method_idx" ON "authentication_rules"("application_id", "method");

-- CreateIndex
CREATE INDEX "return_rules_application_id_method_idx" ON "return_rules"("application_id", "method");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts"("email");

-- CreateIndex
CREATE INDEX "workloads_owner_account_id_idx" ON "workloads"("owner_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "sector_subjects_subject_key" ON "sector_subjects"("subject");

-- CreateIndex
CREATE INDEX "sector_subjects_sector_id_principal_kind_principal_id_idx" ON "sector_subjects"("sector_id", "principal_kind", "principal_id");

-- CreateIndex
CREATE UNIQUE INDEX "claim_grants_account_id_application_id_claim_key" ON "claim_grants"("account_id", "application_id", "claim");

-- CreateIndex
CREATE UNIQUE INDEX "access_keys_identifier_key" ON "access_keys"("identifier");

-- CreateIndex
CREATE INDEX "access_keys_account_id_idx" ON "access_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "public_keys_kid_key" ON "public_keys"("kid");

-- CreateIndex
CREATE INDEX "public_keys_account_id_idx" ON "public_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_links_platform_platform_user_id_key" ON "platform_links"("platform", "platform_user_id");

-- CreateIndex
CREATE INDEX "platform_links_account_id_idx" ON "platform_links"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "client_keys_kid_key" ON "client_keys"("kid");

-- CreateIndex
CREATE INDEX "client_keys_application_id_idx" ON "client_keys"("application_id");

-- CreateIndex
CREATE UNIQUE INDEX "signing_keys_kid_key" ON "signing_keys"("kid");

-- CreateIndex
CREATE INDEX "signing_keys_scope_application_id_status_idx" ON "signing_keys"("scope", "application_id", "status");

-- CreateIndex
CREATE INDEX "sessions_application_id_subject_idx" ON "sessions"("application_id", "subject");

-- CreateIndex
CREATE INDEX "sessions_account_id_idx" ON "sessions"("account_id");

-- CreateIndex
CREATE INDEX "sessions_status_expires_at_idx" ON "sessions"("status", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "refresh_versions_jti_key" ON "refresh_versions"("jti");

-- CreateIndex
CREATE UNIQUE INDEX "refresh_versions_session_id_version_key" ON "refresh_versions"("session_id", "version");

-- CreateIndex
CREATE INDEX "refresh_versions_expires_at_idx" ON "refresh_versions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "agreement_documents_document_type_revision_key" ON "agreement_documents"("document_type", "revision");

-- CreateIndex
CREATE UNIQUE INDEX "agreement_receipts_account_id_document_type_revision_key" ON "agreement_receipts"("account_id", "document_type", "revision");

-- CreateIndex
CREATE UNIQUE INDEX "inquiries_exposure_key_hash_key" ON "inquiries"("exposure_key_hash");

-- CreateIndex
CREATE INDEX "inquiries_expires_at_idx" ON "inquiries"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "passkeys_credential_id_key" ON "passkeys"("credential_id");

-- CreateIndex
CREATE INDEX "passkeys_account_id_idx" ON "passkeys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "errands_errand_key_hash_key" ON "errands"("errand_key_hash");

-- CreateIndex
CREATE INDEX "errands_expires_at_idx" ON "errands"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "device_authorizations_device_code_hash_key" ON "device_authorizations"("device_code_hash");

-- CreateIndex
CREATE UNIQUE INDEX "device_authorizations_user_code_key" ON "device_authorizations"("user_code");

-- CreateIndex
CREATE INDEX "device_authorizations_expires_at_idx" ON "device_authorizations"("expires_at");

-- AddForeignKey
ALTER TABLE "sectors" ADD CONSTRAINT "sectors_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "applications" ADD CONSTRAINT "applications_sector_id_fkey" FOREIGN KEY ("sector_id") REFERENCES "sectors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "authentication_rules" ADD CONSTRAINT "authentication_rules_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "applications"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "return_rules" ADD CONSTRAINT "return_rules_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "applications"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_keys" ADD CONSTRAINT "client_keys_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "applications"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "applications"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refresh_versions" ADD CONSTRAINT "refresh_versions_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
