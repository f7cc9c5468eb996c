--[[
  CheckSeenCandidates: whether maybe-seen discoveries are anywhere in the frontier — queued on
  their host (every tier), in its leased batch, waiting for a re-crawl (`rq`), or already
  confirmed new (`<seen>:new`). With `mark`, a url_fp found nowhere goes into `<seen>:new`, in
  the same step, so its next enqueue takes it as new (includes/seen-set.lua) — once: a second
  candidate of it then finds it there. The coordinator's seen-confirm loop calls it twice, before
  and after asking ClickHouse (apps/coordinator/src/seen-confirm).

  Input:
    KEYS[1] seen     the shard's seen key (layer 0); `<seen>:new` is built from it
    KEYS[2] stats    hash of shard counters (its `moving` flag)
    ARGV[1] key prefix of the shard
    ARGV[2] '1' to mark the url_fps found nowhere, '0' to only look
    ARGV[3] entries of one host's lists read at most: a longer queue is not searched
    ARGV[4..] pairs: url_fp, host
  Output:
    array, per pair: 0 found nowhere (marked with `mark`), 1 in the frontier, 2 cannot tell (the
    host is parked, has spilled URLs, or its lists are longer than ARGV[3]); or SHARDMOVING
]]
--- @include "includes/keys"
--- @include "includes/host-queue"
--- @include "includes/shard-moving"
if shard_moving(KEYS[2]) then return redis.error_reply(SHARD_MOVING) end
local prefix, mark, scan_max = ARGV[1], ARGV[2] == '1', tonumber(ARGV[3])
local confirmed = seen_confirmed_key(KEYS[1])
local recrawl_pending = recrawl_pending_key(prefix)

-- 1 when the host's lists hold the url_fp, 0 when not, 2 when they are too long to read.
local function in_host_lists(fp, host)
  local lists, total = {}, 0
  for _, tier in ipairs(TIERS) do
    local key = queue_key(prefix, tier, host)
    lists[#lists + 1] = key
    total = total + redis.call('LLEN', key)
  end
  local lq = leased_batch_key(prefix, host)
  total = total + redis.call('LLEN', lq)
  if total > scan_max then return 2 end
  local want = fp .. '|'
  for _, key in ipairs(lists) do
    for _, e in ipairs(redis.call('LRANGE', key, 0, -1)) do
      if string.sub(e, 1, 17) == want then return 1 end
    end
  end
  -- Leased entries carry their tier in front: `tier|fp|…`.
  for _, e in ipairs(redis.call('LRANGE', lq, 0, -1)) do
    if string.sub(e, 3, 19) == want then return 1 end
  end
  return 0
end

local function verdict(fp, host)
  if redis.call('SISMEMBER', confirmed, fp) == 1 then return 1 end
  if redis.call('SISMEMBER', recrawl_pending, fp) == 1 then return 1 end
  local h = redis.call('HMGET', host_key(prefix, host), 'parked', 'sp')
  if h[1] == '1' or tonumber(h[2] or '0') > 0 then return 2 end
  return in_host_lists(fp, host)
end

local out = {}
for i = 4, #ARGV, 2 do
  local fp, host = ARGV[i], ARGV[i + 1]
  local v = verdict(fp, host)
  if v == 0 and mark then redis.call('SADD', confirmed, fp) end
  out[#out + 1] = v
end
return out
