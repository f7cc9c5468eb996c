-- The spill, smaller and refilled many host tiers at a time (issue 15). A spilled URL's row no
-- longer repeats the installation's prefix and the host's name: hosts get a small id
-- (frontier_spill_host, never deleted), rows are keyed (host_id, tier, seq) — the one index, which
-- serves both the refill's "next N of this host tier" and the copy's insert-or-skip (seq is
-- unique per shard, a host has one shard) — and the entry drops the URL's scheme and host when
-- they are the row's own (packages/frontier/src/spill-entry.ts). A refill batch is one per shard
-- for many host tiers, so its record keeps the claimed rows as a seq range per host tier
-- (`ranges`, JSON arrays [host_id, tier, first seq, last seq]) instead of a `batch` column on
-- every row (packages/frontier/src/spill-pump.ts). Existing rows are carried over, a claimed
-- row's batch as its range.

ALTER TABLE "frontier_spill" RENAME TO "frontier_spill_v1";
ALTER TABLE "frontier_spill_v1" RENAME CONSTRAINT "frontier_spill_pkey" TO "frontier_spill_v1_pkey";
ALTER INDEX "frontier_spill_prefix_host_tier_seq_idx" RENAME TO "frontier_spill_v1_prefix_host_tier_seq_idx";
ALTER TABLE "frontier_refill_batch" RENAME TO "frontier_refill_batch_v1";
ALTER TABLE "frontier_refill_batch_v1" RENAME CONSTRAINT "frontier_refill_batch_pkey" TO "frontier_refill_batch_v1_pkey";
ALTER INDEX "frontier_refill_batch_prefix_shard_idx" RENAME TO "frontier_refill_batch_v1_prefix_shard_idx";

-- CreateTable
CREATE TABLE "frontier_spill_host" (
    "id" SERIAL NOT NULL,
    "prefix" TEXT NOT NULL,
    "host" TEXT NOT NULL,

    CONSTRAINT "frontier_spill_host_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "frontier_spill" (
    "seq" BIGINT NOT NULL,
    "host_id" INTEGER NOT NULL,
    "tier" TEXT NOT NULL,
    "entry" TEXT NOT NULL,

    CONSTRAINT "frontier_spill_pkey" PRIMARY KEY ("host_id","tier","seq")
);

-- CreateTable
CREATE TABLE "frontier_refill_batch" (
    "batch" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "shard" INTEGER NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ranges" JSON NOT NULL,

    CONSTRAINT "frontier_refill_batch_pkey" PRIMARY KEY ("batch")
);

-- CreateIndex
CREATE UNIQUE INDEX "frontier_spill_host_prefix_host_key" ON "frontier_spill_host"("prefix", "host");

-- CreateIndex
CREATE INDEX "frontier_refill_batch_prefix_shard_idx" ON "frontier_refill_batch"("prefix", "shard");

-- Carry the spill over (its entries as they were: an entry that is not packed reads back as is).
INSERT INTO "frontier_spill_host" ("prefix", "host")
SELECT DISTINCT "prefix", "host" FROM "frontier_spill_v1";

INSERT INTO "frontier_spill" ("seq", "host_id", "tier", "entry")
SELECT s."seq", h."id", s."tier", s."entry"
FROM "frontier_spill_v1" s JOIN "frontier_spill_host" h ON h."prefix" = s."prefix" AND h."host" = s."host";

-- An old batch is one host tier's first rows: its range holds exactly its rows.
INSERT INTO "frontier_refill_batch" ("batch", "prefix", "shard", "claimed_at", "ranges")
SELECT b."batch", b."prefix", b."shard", b."claimed_at",
       json_build_array(json_build_array(h."id", b."tier", min(s."seq"), max(s."seq")))
FROM "frontier_refill_batch_v1" b
JOIN "frontier_spill_v1" s ON s."prefix" = b."prefix" AND s."batch" = b."batch"
JOIN "frontier_spill_host" h ON h."prefix" = s."prefix" AND h."host" = s."host"
GROUP BY b."batch", b."prefix", b."shard", b."claimed_at", h."id", b."tier";

DROP TABLE "frontier_spill_v1";
DROP TABLE "frontier_refill_batch_v1";
