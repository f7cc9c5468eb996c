-- Which numbered migrations ran, with a checksum of the file so an edited migration is caught.
-- ReplacingMergeTree: two coordinators migrating at once may both record a version; harmless.
CREATE TABLE IF NOT EXISTS schema_migrations
(
    version UInt32,
    name String,
    checksum String,
    applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
ORDER BY version
