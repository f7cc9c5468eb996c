-- CreateTable
CREATE TABLE "seeds" (
    "id" BIGSERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "url_fp" CHAR(16) NOT NULL,
    "host" TEXT NOT NULL,
    "priority" SMALLINT NOT NULL DEFAULT 1,
    "source" TEXT NOT NULL DEFAULT 'api',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "enqueued_at" TIMESTAMPTZ(3),

    CONSTRAINT "seeds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "host_policies" (
    "host" TEXT NOT NULL,
    "rate_limit_rps" REAL,
    "blocked" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "host_policies_pkey" PRIMARY KEY ("host")
);

-- CreateIndex
CREATE UNIQUE INDEX "seeds_url_fp_key" ON "seeds"("url_fp");

-- CreateIndex
CREATE INDEX "seeds_enqueued_at_idx" ON "seeds"("enqueued_at");
