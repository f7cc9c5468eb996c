-- The fleet as the coordinator saw it: every agent that ever sent a heartbeat (kept after it
-- stops, so the console can say when it was last seen), and the shard map (which Redis node
-- serves each logical frontier shard, and since when). Both are recorded by the coordinator
-- from Redis every few seconds (apps/coordinator/src/fleet/record-fleet.ts).

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shard_map" (
    "shard" INTEGER NOT NULL,
    "node" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shard_map_pkey" PRIMARY KEY ("shard"),
    CONSTRAINT "shard_map_shard_check" CHECK ("shard" >= 0)
);
