-- A frontier larger than RAM (issue 15): each host tier keeps a bounded head in Redis
-- (FRONTIER_HEAD_MAX); the URLs past it spill here, copied by the coordinator's spiller from each
-- shard's overflow list in Redis, and come back (best first: in spill order per host tier) when
-- the head runs low. `seq` is the shard's spill sequence (Redis): the copy is idempotent on it.
-- A refill claims rows under a batch id, recorded in frontier_refill_batch until the rows are
-- deleted, so a refiller that crashed between pushing the batch into Redis and deleting it can
-- tell, on restart, whether Redis has it (packages/frontier/src/spill-pump.ts).

-- CreateTable
CREATE TABLE "frontier_spill" (
    "prefix" TEXT NOT NULL,
    "shard" INTEGER NOT NULL,
    "seq" BIGINT NOT NULL,
    "host" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "entry" TEXT NOT NULL,
    "batch" TEXT,

    CONSTRAINT "frontier_spill_pkey" PRIMARY KEY ("prefix","shard","seq")
);

-- CreateTable
CREATE TABLE "frontier_refill_batch" (
    "batch" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "shard" INTEGER NOT NULL,
    "host" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "frontier_refill_batch_pkey" PRIMARY KEY ("batch")
);

-- CreateIndex
CREATE INDEX "frontier_spill_prefix_host_tier_seq_idx" ON "frontier_spill"("prefix", "host", "tier", "seq");

-- CreateIndex
CREATE INDEX "frontier_refill_batch_prefix_shard_idx" ON "frontier_refill_batch"("prefix", "shard");
