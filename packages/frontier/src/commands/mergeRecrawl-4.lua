--[[
  MergeRecrawl: moves a shard's scratch re-crawl schedule (replayed from ClickHouse by a frontier
  rebuild) into its live schedule, keeping every URL the live schedule already has: a live entry
  is at least as new as the replay, so a rebuild on a live frontier changes nothing it knows.
  The scratch keys are deleted. Called through FrontierRecrawl.merge (recrawl-schedule.ts).

  Input:
    KEYS[1] scratch rc:due   zset url_fp -> due time (ms)
    KEYS[2] scratch rc:meta  hash url_fp -> JSON meta
    KEYS[3] live rc:due
    KEYS[4] live rc:meta
  Output:
    the number of URLs added to the live schedule
]]
local added = 0
local entries = redis.call('HGETALL', KEYS[2])
for i = 1, #entries, 2 do
  local fp, meta = entries[i], entries[i + 1]
  local due = redis.call('ZSCORE', KEYS[1], fp)
  if due and redis.call('HSETNX', KEYS[4], fp, meta) == 1 then
    redis.call('ZADD', KEYS[3], due, fp)
    added = added + 1
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return added
