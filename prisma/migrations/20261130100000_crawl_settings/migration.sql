-- Crawl-wide settings operators change from the console (PUT /v1/settings). One row (id = 1);
-- a NULL column means "the value from the environment" (CRAWLER_CONTACT_URL,
-- FRONTIER_RECRAWL_SHARE, CRAWLER_DEFAULT_GAP_MS, CRAWLER_MAX_DEPTH).

-- CreateTable
CREATE TABLE "crawl_settings" (
    "id" SMALLINT NOT NULL DEFAULT 1,
    "user_agent_contact" TEXT,
    "recrawl_share" REAL,
    "default_rate_limit_rps" REAL,
    "max_depth" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crawl_settings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "crawl_settings_single_row_check" CHECK ("id" = 1),
    CONSTRAINT "crawl_settings_recrawl_share_check" CHECK ("recrawl_share" BETWEEN 0 AND 1),
    CONSTRAINT "crawl_settings_rate_check" CHECK ("default_rate_limit_rps" > 0),
    CONSTRAINT "crawl_settings_max_depth_check" CHECK ("max_depth" >= 0)
);
