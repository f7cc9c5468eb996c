--[[
  SeenBatch: for each url_fp, whether the shard's seen set (probably, for Bloom: any layer)
  holds it. Read-only.

  Input:
    KEYS[1] seen     Bloom filter's layer 0 (includes/seen-set.lua), or a set in exact mode
    KEYS[2] stats    hash of shard counters (its `moving` flag)
    ARGV[1] seen mode: 'bloom' or 'set'
    ARGV[2] Bloom spec `m:k:c:p`: layer 0's bits, hashes and capacity, target FP rate
    ARGV[3..] url_fps
  Output:
    array of 1/0, or the SHARDMOVING error (the layers are keys the script builds)
]]
--- @include "includes/seen-set"
--- @include "includes/shard-moving"
if shard_moving(KEYS[2]) then return redis.error_reply(SHARD_MOVING) end
local seen = seen_open(KEYS[1], ARGV[1], ARGV[2], 0)
local out = {}
for i = 3, #ARGV do out[#out + 1] = seen_has(seen, ARGV[i]) and 1 or 0 end
return out
