-- Login under attack (issue 22). A token created in a console session records that session:
-- when the session's user's password changes, the tokens created in any of the user's sessions
-- are revoked with their descendants, as the sessions themselves are. Logging out or a session
-- expiring leaves them working. Tokens created in a session before this migration have no link.

-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN "session_id_hash" CHAR(64);

-- CreateIndex
CREATE INDEX "api_tokens_session_id_hash_idx" ON "api_tokens"("session_id_hash");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_session_id_hash_fkey" FOREIGN KEY ("session_id_hash") REFERENCES "sessions"("id_hash") ON DELETE RESTRICT ON UPDATE CASCADE;
