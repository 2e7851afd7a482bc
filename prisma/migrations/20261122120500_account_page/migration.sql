-- The account page: a passkey gets a name the person can change (set at creation to the browser that made it),
-- and an account remembers its language so that security notices (a passkey added) reach the owner in it.

-- AlterTable
ALTER TABLE "passkeys" ADD COLUMN "name" TEXT;

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "locale" TEXT;
