-- URL block patterns of host policies (issue 12): a policy row (an exact host or a pattern
-- "*.example.com") may carry patterns matched against URL paths — a prefix ("/private/") or a
-- glob with * and ? ("*.pdf"). Stored in canonical form; the API validates them (length, count,
-- syntax). A pattern belongs to its policy row and goes with it.

-- CreateTable
CREATE TABLE "host_block_patterns" (
    "host" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "host_block_patterns_pkey" PRIMARY KEY ("host","pattern"),
    CONSTRAINT "host_block_patterns_pattern_check" CHECK (char_length("pattern") BETWEEN 1 AND 2048)
);

-- AddForeignKey
ALTER TABLE "host_block_patterns" ADD CONSTRAINT "host_block_patterns_host_fkey" FOREIGN KEY ("host") REFERENCES "host_policies"("host") ON DELETE CASCADE ON UPDATE CASCADE;
