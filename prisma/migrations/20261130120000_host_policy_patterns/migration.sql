-- Host policies grow: a row is an exact host ("example.com") or a domain-suffix pattern
-- ("*.example.com", covering example.com and every host under it). Every field may be NULL,
-- meaning "not set here": a host's effective policy takes each field from its own row, else
-- from the longest pattern that sets it, else from the crawl default.

-- AlterTable
ALTER TABLE "host_policies" ALTER COLUMN "blocked" DROP NOT NULL,
ALTER COLUMN "blocked" DROP DEFAULT,
ADD COLUMN "daily_budget" INTEGER,
ADD COLUMN "allowlisted" BOOLEAN,
ADD COLUMN "max_connections" SMALLINT,
ADD CONSTRAINT "host_policies_daily_budget_check" CHECK ("daily_budget" >= 0),
ADD CONSTRAINT "host_policies_rate_check" CHECK ("rate_limit_rps" > 0),
ADD CONSTRAINT "host_policies_max_connections_check" CHECK ("max_connections" BETWEEN 1 AND 16);
