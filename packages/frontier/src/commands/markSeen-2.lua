--[[
  MarkSeen: adds url_fps to a shard's seen set without queueing them. A frontier rebuild restores
  the URLs already fetched this way (FrontierEnqueue.markSeen), so a link to one of them is not
  fetched again as new. The seen set's code is the enqueue script's (includes/seen-set.lua):
  layers open here as they do there.

  Input:
    KEYS[1] seen     Bloom filter's layer 0, or a set in exact mode
    KEYS[2] stats    hash of shard counters (its `moving` flag)
    ARGV[1] seen mode: 'bloom' or 'set'
    ARGV[2] Bloom spec `m:k:c:p`: layer 0's bits, hashes and capacity, target FP rate
    ARGV[3..] url_fps of the shard's hosts
  Output:
    how many were not in the set before, or the SHARDMOVING error
]]
--- @include "includes/seen-set"
--- @include "includes/shard-moving"
if shard_moving(KEYS[2]) then return redis.error_reply(SHARD_MOVING) end
local seen = seen_open(KEYS[1], ARGV[1], ARGV[2], 0)
local added = 0
for i = 3, #ARGV do
  if seen_add(seen, ARGV[i]) then added = added + 1 end
end
seen_close(seen)
return added
