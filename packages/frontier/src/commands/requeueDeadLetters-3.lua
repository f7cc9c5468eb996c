--[[
  Puts dead letters back into their hosts' queues (oldest first) with their attempt count reset,
  and un-parks their hosts. An operator's "try again".

  Input:
    KEYS[1] ready    KEYS[2] stats    KEYS[3] dead
    ARGV[1] key prefix of the shard
    ARGV[2] most entries to re-queue
    ARGV[3] only this host's entries, or '' for any
  Output:
    number of URLs re-queued
]]
local ready_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, limit, only = ARGV[1], tonumber(ARGV[2]), ARGV[3]
--- @include "includes/keys"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local moved, kept = 0, {}
local scanned = redis.call('LRANGE', dead_key, 0, -1)
for _, raw in ipairs(scanned) do
  local d = cjson.decode(raw)
  if moved < limit and (only == '' or d.h == only) then
    local fp, tail = string.match(d.e, '^(%x+)|%d+|(.*)$')
    local hkey = host_key(prefix, d.h)
    redis.call('HDEL', hkey, 'parked', 'park_reason', 'errors')
    redis.call('RPUSH', queue_key(prefix, d.q, d.h), fp .. '|0|' .. tail)
    if d.q == 'r' then redis.call('SADD', recrawl_pending_key(prefix), fp) end
    redis.call('HINCRBY', hkey, 'n', 1)
    redis.call('HINCRBY', stats_key, 'queued', 1)
    -- Letters from before the per-reason counts existed have none to lower.
    local by_reason = 'dead:' .. tostring(d.r)
    if tonumber(redis.call('HGET', stats_key, by_reason) or '0') > 0 then
      redis.call('HINCRBY', stats_key, by_reason, -1)
    end
    make_ready(ready_key, hkey, d.h)
    moved = moved + 1
  else
    kept[#kept + 1] = raw
  end
end
if moved > 0 then
  redis.call('DEL', dead_key)
  -- In chunks: unpack() of more than ~8,000 values fails, after the DEL above.
  for i = 1, #kept, 1000 do
    redis.call('RPUSH', dead_key, unpack(kept, i, math.min(i + 999, #kept)))
  end
  redis.call('HINCRBY', stats_key, 'dead', 0 - moved)
end
return moved
