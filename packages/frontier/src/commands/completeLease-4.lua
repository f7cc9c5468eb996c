--[[
  Completes a host lease, fenced by lease id: a late agent whose lease expired (and was
  reclaimed or re-leased) changes nothing. The first `processed` URLs of the batch are done;
  the rest return to the head of their tier lists in order. The host's next allowed time becomes
  now + delay, its error count resets, its daily budget is charged. With a park reason the host is
  parked (e.g. robots.txt keeps failing): its remaining and queued URLs become dead letters.

  Input:
    KEYS[1] ready    base of the class sets `ready:<c>` (zsets host -> next allowed time, ms)
    KEYS[2] leases   zset lease_id -> deadline (ms)
    KEYS[3] stats    hash of shard counters
    KEYS[4] dead     list of dead letters
    ARGV[1] key prefix of the shard
    ARGV[2] lease id
    ARGV[3] processed count (a prefix of the batch; later URLs with a progress mark are done too)
    ARGV[4] delay before the host's next request (ms)
    ARGV[5] pace (ms): the host's current gap, used to size its next batch
    ARGV[6] park reason, or '' to keep the host
    ARGV[7] the host's IP address as connected, or ''
    ARGV[8] gap to keep between two leases of hosts on one IP (ms)
  Output:
    number of URLs returned to the queue (or dead-lettered), or STALE_LEASE (-1, see
    includes/script-replies.lua) when the lease is not current
]]
local ready_key, leases_key, stats_key, dead_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, lease_id = ARGV[1], ARGV[2]
local processed, delay, pace = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local reason, ip, ip_gap = ARGV[6], ARGV[7], tonumber(ARGV[8])
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/dead-letter"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/daily-budget"
--- @include "includes/close-batch"
--- @include "includes/shard-moving"
--- @include "includes/script-replies"
--- @include "includes/spill"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local now = now_ms()
local host, hkey, rest, marked = close_batch(prefix, lease_id, processed)
if not host then return STALE_LEASE end
end_lease(prefix, leases_key, hkey, lease_id, now + delay, ip_gap, now, ip)
redis.call('HSET', hkey, 'pace_ms', pace)
-- Only a fetch is a success: a batch handed back unfetched (an extra lease) keeps the backoff.
if processed > 0 then redis.call('HSET', hkey, 'errors', 0) end
budget_use(hkey, math.floor(now / 86400000), processed + marked)
redis.call('HINCRBY', stats_key, 'processed', processed + marked)

if reason ~= '' then
  redis.call('HSET', hkey, 'parked', '1', 'park_reason', reason)
  for _, tagged in ipairs(rest) do
    local tier, entry = string.match(tagged, '^(%w)|(.*)$')
    dead_letter(dead_key, stats_key, host, tier, reason, entry, now)
  end
  local moved = #rest
  for _, tier in ipairs(TIERS) do
    local qkey = queue_key(prefix, tier, host)
    for _, entry in ipairs(redis.call('LRANGE', qkey, 0, -1)) do
      dead_letter(dead_key, stats_key, host, tier, reason, entry, now)
      moved = moved + 1
    end
    redis.call('DEL', qkey)
  end
  redis.call('HINCRBY', stats_key, 'queued', 0 - (moved - #rest))
  redis.call('HSET', hkey, 'n', 0)
  -- Its spilled URLs become dead letters as the refiller brings them back (refillHeads).
  if tonumber(redis.call('HGET', hkey, 'sp') or '0') > 0 then redis.call('SADD', refill_hosts_key(prefix), host) end
  return moved
end

push_back_head(prefix, hkey, stats_key, host, rest)
make_ready(ready_key, hkey, host)
return #rest
