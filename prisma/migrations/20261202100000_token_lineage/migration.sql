-- Accounts hardened (issue 13). A token created with another token records it as its parent:
-- a token never expires after its parent, and revoking a token revokes every token created
-- with it, transitively. Tokens created in a console session or at start-up have no parent.
-- Failed logins are counted into one audit entry per account and address a minute; an index
-- finds the entry of the current minute.

-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN "parent_token_id" UUID;

-- CreateIndex
CREATE INDEX "api_tokens_parent_token_id_idx" ON "api_tokens"("parent_token_id");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_parent_token_id_fkey" FOREIGN KEY ("parent_token_id") REFERENCES "api_tokens"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "audit_log_action_target_at_idx" ON "audit_log"("action", "target", "at");
