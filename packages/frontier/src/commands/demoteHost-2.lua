--[[
  Lowers a host's priority class, e.g. when the crawl-quality code finds it trap-heavy: its
  `demoted` count grows by the levels given (a negative count undoes earlier demotions), within
  0..9, and a ready host moves to its new class set. Its queues, lease and politeness state are
  untouched: a class only orders hosts that are due.

  Input:
    KEYS[1] ready    base of the class sets `ready:<c>` (zsets host -> next allowed time, ms)
    KEYS[2] stats    hash of shard counters
    ARGV[1] key prefix of the shard
    ARGV[2] host
    ARGV[3] classes to lower it by (negative: to lift earlier demotions)
    ARGV[4] reason, kept in `demote_reason` ('' keeps the last one)
  Output:
    { class, demoted }
]]
local ready_key, stats_key = KEYS[1], KEYS[2]
local prefix, host, levels, reason = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/make-ready"
--- @include "includes/host-class"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local hkey = host_key(prefix, host)
if redis.call('HSETNX', hkey, 'created', now_ms()) == 1 then
  redis.call('HINCRBY', stats_key, 'hosts', 1)
end
local demoted = tonumber(redis.call('HGET', hkey, 'demoted') or '0') + levels
demoted = math.max(0, math.min(HOST_CLASSES - 1, demoted))
redis.call('HSET', hkey, 'demoted', demoted)
if reason ~= '' then redis.call('HSET', hkey, 'demote_reason', reason) end
return { refresh_class(ready_key, hkey, host), demoted }
