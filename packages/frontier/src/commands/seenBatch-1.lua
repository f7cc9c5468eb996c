--[[
  SeenBatch: for each url_fp, whether the shard's seen set (probably, for Bloom) holds it.
  Read-only.

  Input:
    KEYS[1] seen     Bloom bit string, or a set in exact mode
    ARGV[1] seen mode: 'bloom' or 'set'
    ARGV[2] Bloom size in bits (m)
    ARGV[3] Bloom hash count (k)
    ARGV[4..] url_fps
  Output:
    array of 1/0
]]
local seen_key, mode, m, k = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
--- @include "includes/seen-set"
local out = {}
for i = 4, #ARGV do out[#out + 1] = seen_has(seen_key, ARGV[i], mode, m, k) and 1 or 0 end
return out
