-- A credential (access key, public key) applies to exactly one application or to every application of one sector
-- (the spec's "immutable application/sector applicability"): `application_id` becomes optional beside a new
-- `sector_id`, and exactly one of them is set. Applicability never changes after creation: a trigger refuses an
-- update of either column, so a credential cannot be widened (or moved) after an operator handed it out. Existing
-- rows keep their application. Not indexed: direct issue finds a key by its identifier or kid.

-- AlterTable
ALTER TABLE "access_keys" ALTER COLUMN "application_id" DROP NOT NULL,
  ADD COLUMN "sector_id" UUID,
  ADD CONSTRAINT "access_keys_one_applicability" CHECK (("application_id" IS NULL) <> ("sector_id" IS NULL));

-- AlterTable
ALTER TABLE "public_keys" ALTER COLUMN "application_id" DROP NOT NULL,
  ADD COLUMN "sector_id" UUID,
  ADD CONSTRAINT "public_keys_one_applicability" CHECK (("application_id" IS NULL) <> ("sector_id" IS NULL));

CREATE FUNCTION "credential_applicability_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.application_id IS DISTINCT FROM OLD.application_id OR NEW.sector_id IS DISTINCT FROM OLD.sector_id THEN
    RAISE EXCEPTION 'a credential''s applicability is immutable' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "access_keys_applicability_immutable" BEFORE UPDATE OF "application_id", "sector_id"
  ON "access_keys" FOR EACH ROW EXECUTE FUNCTION "credential_applicability_immutable"();

CREATE TRIGGER "public_keys_applicability_immutable" BEFORE UPDATE OF "application_id", "sector_id"
  ON "public_keys" FOR EACH ROW EXECUTE FUNCTION "credential_applicability_immutable"();
