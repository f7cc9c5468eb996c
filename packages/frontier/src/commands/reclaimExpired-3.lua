--[[
  Returns the URLs of expired leases to their hosts' queues (also done inside lease and stats).

  Input:
    KEYS[1] ready    KEYS[2] leases    KEYS[3] stats
    ARGV[1] key prefix of the shard
    ARGV[2] most leases to reclaim in this call
  Output:
    number of leases reclaimed
]]
local ready_key, leases_key, stats_key = KEYS[1], KEYS[2], KEYS[3]
local prefix, limit = ARGV[1], tonumber(ARGV[2])
--- @include "includes/now-ms"
--- @include "includes/host-queue"
--- @include "includes/make-ready"
--- @include "includes/end-lease"
--- @include "includes/reclaim-expired"
--- @include "includes/shard-moving"
if shard_moving(stats_key) then return 0 end
return reclaim_expired(prefix, ready_key, leases_key, stats_key, now_ms(), limit)
