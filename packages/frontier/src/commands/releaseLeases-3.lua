--[[
  Returns open leases to the queues now, as if they had expired (reclaim_lease: URLs recorded
  as done stay done): every lease of one agent (an operator releasing a dead agent's hosts), or
  the leases named.

  Input:
    KEYS[1] ready    base of the class sets `ready:<c>` (zsets host -> next allowed time, ms)
    KEYS[2] leases   zset lease_id -> deadline (ms)
    KEYS[3] stats    hash of shard counters
    ARGV[1] key prefix of the shard
    ARGV[2] agent id whose leases to release ('' to release the leases named after it)
    ARGV[3..] lease ids (when ARGV[2] is '')
  Output:
    number of leases released
]]
local ready_key, leases_key, stats_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, agent = ARGV[1], ARGV[2]
--- @include "includes/keys"
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/reclaim-expired"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return redis.error_reply(SHARD_MOVING) end
local now = now_ms()
local ids = {}
if agent ~= '' then
  for _, lease_id in ipairs(redis.call('ZRANGE', leases_key, 0, -1)) do
    if redis.call('HGET', lease_key(prefix, lease_id), 'agent') == agent then ids[#ids + 1] = lease_id end
  end
else
  for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
end
local released = 0
for _, lease_id in ipairs(ids) do
  if redis.call('ZSCORE', leases_key, lease_id) then
    released = released + reclaim_lease(prefix, ready_key, leases_key, stats_key, lease_id, now)
  end
end
return released
