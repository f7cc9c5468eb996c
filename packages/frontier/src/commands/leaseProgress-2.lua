--[[
  Records URLs of open leases as done while the agent works them (after their outputs — links,
  telemetry, page — are written), so a lease reclaimed from a dead agent returns only the URLs
  not done (reclaim_lease). Marks of a lease that is no longer current are ignored.

  Input:
    KEYS[1] leases   zset lease_id -> deadline (ms) (unused; keeps the shard's key set explicit)
    KEYS[2] stats    hash of shard counters (for the shard-move check)
    ARGV[1] key prefix of the shard
    ARGV[2..] pairs: lease id, index of the done URL in the lease's batch (0-based)
  Output:
    number of marks recorded
]]
local prefix = ARGV[1]
--- @include "includes/keys"
--- @include "includes/shard-moving"
if shard_moving(KEYS[2]) then return redis.error_reply(SHARD_MOVING) end
local recorded = 0
for i = 2, #ARGV - 1, 2 do
  local lkey = lease_key(prefix, ARGV[i])
  local host = redis.call('HGET', lkey, 'host')
  if host and redis.call('HGET', host_key(prefix, host), 'lease') == ARGV[i] then
    redis.call('HSET', lkey, 'd' .. ARGV[i + 1], 1)
    recorded = recorded + 1
  end
end
return recorded
