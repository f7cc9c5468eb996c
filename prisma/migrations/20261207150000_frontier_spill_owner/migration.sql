-- Who may change the spill, and which Redis dataset its rows belong to (issue 22).
-- frontier_spill_owner: one row per installation (prefix). `epoch` goes up at every takeover
-- of the spill pump and at every clear of the spill; each write of a pump (copy, claim,
-- confirm, release) checks its epoch under this row's lock, so a pump that lost its turn (paused,
-- partitioned, its lease expired) changes nothing and fails loudly. `dataset` names the Redis
-- dataset whose counters account for the rows (the Redis side holds the same id); a pump runs
-- only when the two agree, and only a rebuild after a Redis loss clears the rows and names a
-- new one.
-- frontier_rebuild_run: the rebuild running now, if any (one across coordinators), held by a
-- lease its coordinator renews.

-- CreateTable
CREATE TABLE "frontier_spill_owner" (
    "prefix" TEXT NOT NULL,
    "epoch" BIGINT NOT NULL DEFAULT 0,
    "owner" TEXT,
    "lease_until" TIMESTAMPTZ(3) NOT NULL DEFAULT '-infinity',
    "dataset" TEXT,

    CONSTRAINT "frontier_spill_owner_pkey" PRIMARY KEY ("prefix")
);

-- CreateTable
CREATE TABLE "frontier_rebuild_run" (
    "prefix" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "frontier_rebuild_run_pkey" PRIMARY KEY ("prefix")
);
